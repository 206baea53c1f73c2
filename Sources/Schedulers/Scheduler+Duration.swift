import Foundation

/// Scheduling by `Duration`, measured on a monotonic clock.
///
/// ## Which clock each method uses
///
/// | Method                                           | Queue schedulers                | TestScheduler |
/// |--------------------------------------------------|---------------------------------|---------------|
/// | `schedule(after: Date)`, repeating `after: Date` | wall clock (`DispatchWallTime`) | virtual       |
/// | `schedule(afterDelay: TimeInterval)`             | wall clock (a `Date` from now)  | virtual       |
/// | `schedule(after: Duration)`, repeating, `sleep(for:)`, `timer(every:)` | monotonic (`DispatchTime`) | virtual |
///
/// - **Wall clock** (`DispatchWallTime`, `Date`): a deadline is a moment of the calendar. If the
///   system clock is set forward an hour, a deadline an hour away fires at once; set back, it
///   fires an hour late. Time the machine spends asleep counts: a deadline that passed during
///   sleep fires on wake. Use it for "at 9:00".
/// - **Monotonic clock** (`DispatchTime`: `CLOCK_MONOTONIC` on Linux, `mach_absolute_time` on
///   Apple platforms, the same clock as `SuspendingClock`): clock changes do not affect it, but it
///   stops while the machine sleeps, so "in 10 minutes" means ten minutes of the machine being
///   awake. Use it for delays, timeouts and periods.
/// - **Virtual** (``TestScheduler``): nothing passes until the test advances the scheduler.
///
/// A ``SubscriptionScheduler`` uses `Scheduler.current ?? its background scheduler`, so the
/// clock is that scheduler's. The ``ImmediateScheduler`` blocks the calling thread on the
/// monotonic clock and cannot repeat. A subclass defined outside this module (which cannot
/// override these extension methods) has them forwarded to its own Date-based methods, so its
/// overrides see every action; the delay then counts on whatever clock those use.
extension Scheduler {
    /// Schedules `action` to run once `delay` has passed on the monotonic clock (virtual time on
    /// a ``TestScheduler``). A zero or negative delay means as soon as possible.
    ///
    /// Where and how it runs is as for ``schedule(after:_:)-(Date,_)``: on a ``QueueScheduler`` on its
    /// queue, as the current scheduler; a disposed action never starts and is released at once.
    ///
    /// - Parameters:
    ///   - delay: how long to wait; zero or negative means as soon as possible.
    ///   - action: the work to run, on this scheduler, as ``Scheduler/current``.
    /// - Returns: a disposable that stops the action from starting, or nil if it cannot be cancelled.
    @discardableResult
    public func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> (any Disposable)? {
        scheduleMonotonic(after: delay, action)
    }

    /// Schedules `action` to run first once `delay` has passed on the monotonic clock (virtual on
    /// a ``TestScheduler``), then every `interval`, until disposed.
    ///
    /// Like the Date-based ``schedule(after:repeatingEvery:withLeeway:_:)``, it runs until
    /// disposed whether or not anyone retains the returned disposable (on a ``QueueScheduler``,
    /// even when the scheduler object is released), every run as the current scheduler.
    ///
    /// - Parameters:
    ///   - delay: until the first run; zero or negative means as soon as possible.
    ///   - interval: between runs; must be greater than zero.
    ///   - leeway: how late a run may be, so the system can coalesce wake-ups; zero or more.
    ///     A ``TestScheduler`` ignores it.
    ///   - action: the work to run each time, on this scheduler, as ``Scheduler/current``.
    /// - Returns: a disposable that stops future runs. A run already in progress completes.
    /// - Precondition: `interval > .zero` and `leeway >= .zero`; the message names this method
    ///   and the value. Not supported on the ``ImmediateScheduler`` (a precondition failure).
    @discardableResult
    public func schedule(
        after delay: Duration, repeatingEvery interval: Duration, leeway: Duration = .zero,
        _ action: @escaping @Sendable () -> Void
    ) -> (any Disposable)? {
        RepeatPreconditions.check(interval: interval, leeway: leeway)
        return scheduleMonotonic(after: delay, repeatingEvery: interval, leeway: leeway, action)
    }
}
