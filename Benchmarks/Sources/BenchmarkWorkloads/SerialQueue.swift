import Dispatch
import OpenCombine
import OpenCombineDispatch
import Schedulers

/// Workload 1: `actions` no-op `schedule` + run on one serial queue, from `producers` threads,
/// waited for at the end (a last action signals a semaphore).
///
/// Every system gets a fresh serial queue targeting the default global queue, so they run on the
/// same kind of queue: ours is a ``TargetQueueScheduler``; raw GCD is `DispatchQueue.async`;
/// OpenCombine is `DispatchQueue.OCombine.schedule(options:_:)`.
public enum SerialQueueWorkload {
    public static func ours(actions: Int, producers: Int) {
        let scheduler = TargetQueueScheduler(name: "bench.serial.ours", targetQueue: .global())
        produce(actions: actions, producers: producers) { scheduler.schedule(noop) }
        waitFor { done in scheduler.schedule(done) }
    }

    public static func rawGCD(actions: Int, producers: Int) {
        let queue = DispatchQueue(label: "bench.serial.raw", target: .global())
        produce(actions: actions, producers: producers) { queue.async(execute: noop) }
        waitFor { done in queue.async(execute: done) }
    }

    /// The floor for any scheduler that hands the queue its action together with something of
    /// its own (ours: the scheduler to make current, and the disposable's state): raw `async` of
    /// a closure capturing two references, so that Swift allocates a context per call, as ours
    /// does with its `ScheduledAction`. Not in the ratio table; `Scripts/callgrind.sh` and the
    /// `workload` executable use it to show the floor.
    public static func rawGCDWithContext(actions: Int, producers: Int) {
        let queue = DispatchQueue(label: "bench.serial.rawcontext", target: .global())
        let owner = Counter()
        produce(actions: actions, producers: producers) {
            let action = noop
            queue.async { withExtendedLifetime(owner) { action() } }
        }
        waitFor { done in queue.async(execute: done) }
    }

    public static func openCombine(actions: Int, producers: Int) {
        let scheduler = DispatchQueue(label: "bench.serial.opencombine", target: .global()).ocombine
        produce(actions: actions, producers: producers) { scheduler.schedule(options: nil, noop) }
        waitFor { done in scheduler.schedule(options: nil, done) }
    }

    /// Calls `scheduleOne` `actions` times in all, split over `producers` threads.
    @inline(__always)
    static func produce(actions: Int, producers: Int, _ scheduleOne: () -> Void) {
        if producers == 1 {
            for _ in 0..<actions { scheduleOne() }
            return
        }
        withoutActuallyEscaping(scheduleOne) { scheduleOne in
            let box = UncheckedBox(scheduleOne)
            DispatchQueue.concurrentPerform(iterations: producers) { _ in
                for _ in 0..<(actions / producers) { box.value() }
            }
        }
    }
}

/// Hands a non-Sendable value to `concurrentPerform`, whose threads only call it.
struct UncheckedBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
