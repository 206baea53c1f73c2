import Dispatch
import Foundation
import OpenCombine
import OpenCombineDispatch
import Schedulers
import Synchronization

/// Workload 2: `actions` one-shot timers with a 0 delay (the timer path), waited for at the end.
/// Ours is `schedule(after: Date())`; raw GCD is `asyncAfter(wallDeadline: .now())`; OpenCombine
/// is `schedule(after: now)` (a monotonic deadline). Timers due at the same instant may fire in
/// any order, so each action counts down and the last one signals.
public enum DelayedWorkload {
    public static func ours(actions: Int) {
        let scheduler = TargetQueueScheduler(name: "bench.after.ours", targetQueue: .global())
        let countdown = Countdown(actions)
        let action: @Sendable () -> Void = { countdown.tick() }
        for _ in 0..<actions { scheduler.schedule(after: Date(), action) }
        countdown.wait()
    }

    public static func rawGCD(actions: Int) {
        let queue = DispatchQueue(label: "bench.after.raw", target: .global())
        let countdown = Countdown(actions)
        let action: @Sendable () -> Void = { countdown.tick() }
        for _ in 0..<actions { queue.asyncAfter(wallDeadline: .now(), execute: action) }
        countdown.wait()
    }

    public static func openCombine(actions: Int) {
        let scheduler = DispatchQueue(label: "bench.after.opencombine", target: .global()).ocombine
        let countdown = Countdown(actions)
        let action: @Sendable () -> Void = { countdown.tick() }
        for _ in 0..<actions {
            scheduler.schedule(after: scheduler.now, tolerance: .nanoseconds(0), options: nil, action)
        }
        countdown.wait()
    }
}

/// Signals once `tick()` has been called `count` times.
final class Countdown: Sendable {
    private let remaining: Atomic<Int>
    private let semaphore = DispatchSemaphore(value: 0)

    init(_ count: Int) {
        remaining = Atomic(count)
    }

    func tick() {
        if remaining.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 { semaphore.signal() }
    }

    func wait() {
        semaphore.wait()
    }
}
