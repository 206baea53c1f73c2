import NIOCore
import NIOPosix

/// SwiftNIO's event loop as a peer: a `MultiThreadedEventLoopGroup` of one thread is the serial
/// executor a server author would pick instead of a queue. One group for the whole process, as a
/// server keeps one, so no run pays for starting or stopping its thread.
enum NIOPeer {
    static let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    static var loop: any EventLoop { group.next() }
}

extension SerialQueueWorkload {
    /// `EventLoop.execute` from `producers` threads onto the loop, waited for at the end.
    public static func nio(actions: Int, producers: Int) {
        let loop = NIOPeer.loop
        produce(actions: actions, producers: producers) { loop.execute(noop) }
        waitFor { done in loop.execute(done) }
    }
}

extension RecursionWorkload {
    /// Work that re-submits itself to the loop with `execute`, like the raw GCD re-posting.
    public static func nio(iterations: Int) {
        let loop = NIOPeer.loop
        let counter = Counter()
        waitFor { done in
            let step = NIOStep(loop: loop) {
                counter.value &+= 1
                guard counter.value < iterations else {
                    done()
                    return false
                }
                return true
            }
            step.post()
        }
    }
}

/// NIO recursion: the work executes itself again on the loop while `body` says so.
private final class NIOStep: Sendable {
    let loop: any EventLoop
    let body: @Sendable () -> Bool

    init(loop: any EventLoop, body: @escaping @Sendable () -> Bool) {
        self.loop = loop
        self.body = body
    }

    func post() {
        loop.execute { [self] in
            if body() { post() }
        }
    }
}
