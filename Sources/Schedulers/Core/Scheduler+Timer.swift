import Foundation

extension Scheduler {
    /// A sequence of dates: the first one `interval` after this call, then one every `interval`,
    /// measured like `schedule(after: Duration, repeatingEvery:)` (the monotonic clock on a queue
    /// scheduler, virtual time on a ``TestScheduler``).
    ///
    /// - Each element is the scheduler's current date when the tick runs: `Date()` on a queue
    ///   scheduler, the virtual ``TestScheduler/now`` on a test scheduler.
    /// - Ticks run on this scheduler as its current scheduler. A consumer that falls behind gets
    ///   the latest date only (one is buffered), like a Dispatch timer coalescing ticks; a
    ///   consumer on a ``TestScheduler`` (preferring it, or captured by
    ///   ``TestScheduler/withCapturedTasks(_:)``) keeps up with every tick.
    /// - The timer belongs to the iterator, not to the sequence: see ``TimerSequence`` for when
    ///   it starts and stops. This call itself schedules nothing.
    /// - The ``ImmediateScheduler`` cannot repeat; its timer runs on a background queue.
    ///
    /// - Parameters:
    ///   - interval: The time between ticks, and before the first.
    ///   - leeway: How late a tick may come, for the scheduler to coalesce wake-ups (ignored by a
    ///     ``TestScheduler``).
    /// - Returns: A sequence whose every iteration runs a timer of its own.
    /// - Precondition: `interval > .zero` and `leeway >= .zero` (the message names this method).
    public func timer(every interval: Duration, leeway: Duration = .zero) -> TimerSequence {
        RepeatPreconditions.check(interval: interval, leeway: leeway, method: "timer(every:leeway:)")
        return TimerSequence(scheduler: self, interval: interval, leeway: leeway)
    }
}
