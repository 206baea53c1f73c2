import Dispatch
import Schedulers

/// Workload 5: `scheduleRecursive`, each run rescheduling until `iterations` runs have happened.
/// On the immediate scheduler against a plain loop calling the same action; on a serial queue
/// against raw GCD work that re-posts itself with `async`. The runs on a queue are waited for.
public enum RecursionWorkload {
    public static func oursImmediate(iterations: Int) {
        let counter = Counter()
        Scheduler.immediate.scheduleRecursive { reschedule in
            counter.value &+= 1
            if counter.value < iterations { reschedule() }
        }
        precondition(counter.value == iterations)
    }

    /// The limit: a loop calling an opaque action that decides whether to go on.
    public static func plainLoop(iterations: Int) {
        let counter = Counter()
        let action = opaque { () -> Bool in
            counter.value &+= 1
            return counter.value < iterations
        }
        while action() {}
        precondition(counter.value == iterations)
    }

    public static func oursQueue(iterations: Int) {
        let scheduler = TargetQueueScheduler(name: "bench.recursive.ours", targetQueue: .global())
        let counter = Counter()
        waitFor { done in
            scheduler.scheduleRecursive { reschedule in
                counter.value &+= 1
                if counter.value < iterations { reschedule() } else { done() }
            }
        }
    }

    public static func rawQueue(iterations: Int) {
        let queue = DispatchQueue(label: "bench.recursive.raw", target: .global())
        let counter = Counter()
        waitFor { done in
            let step = RawStep(queue: queue) {
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

    @inline(never)
    private static func opaque<T>(_ value: T) -> T { value }
}

/// Raw GCD recursion: the work posts itself again with `async` while `body` says so.
private final class RawStep: Sendable {
    let queue: DispatchQueue
    let body: @Sendable () -> Bool

    init(queue: DispatchQueue, body: @escaping @Sendable () -> Bool) {
        self.queue = queue
        self.body = body
    }

    func post() {
        queue.async { [self] in
            if body() { post() }
        }
    }
}
