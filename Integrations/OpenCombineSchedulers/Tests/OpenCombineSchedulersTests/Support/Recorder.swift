import Dispatch
import Schedulers
import Synchronization

/// Collects what a subscriber receives, from any thread, and lets a real-time test wait for it.
final class Recorder<Value: Sendable>: Sendable {
    private let state = Mutex<[Value]>([])
    private let arrivals = DispatchSemaphore(value: 0)

    func append(_ value: Value) {
        state.withLock { $0.append(value) }
        arrivals.signal()
    }

    var values: [Value] {
        state.withLock { $0 }
    }

    /// Waits until `count` values have arrived or `timeout` seconds have passed (a failure bound,
    /// not a timing assertion). Call it from a test's thread, never from a scheduler's queue.
    func wait(for count: Int, timeout: Double = 10) -> Bool {
        let deadline = DispatchTime.now() + timeout
        while values.count < count {
            if arrivals.wait(timeout: deadline) == .timedOut { return values.count >= count }
        }
        return true
    }
}

/// The scheduler running the caller, spelled out because `Scheduler` alone is ambiguous next to
/// Combine's protocol of that name.
var currentScheduler: Schedulers.Scheduler? {
    Schedulers.Scheduler.current
}
