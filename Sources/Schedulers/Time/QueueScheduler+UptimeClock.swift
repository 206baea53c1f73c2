import Dispatch

/// The `Duration` forms on a queue: `DispatchTime`, the monotonic uptime clock (it ignores
/// changes to the system clock and stops while the machine sleeps). See ``Scheduler/now``.
extension QueueScheduler {
    /// One `asyncAfter(deadline:)`: like `schedule(after: Date)`, but on the uptime clock.
    func scheduleOnUptimeClock(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> any Disposable {
        let scheduled = ScheduledAction(scheduler: self, action: action)
        if delay > .zero {
            #if DEBUG
            ClockProbe.record(.uptime)
            #endif
            submission.asyncAfter(scheduled, deadline: .now() + .nanoseconds(delay.clampedNanoseconds), on: queue)
        } else {
            submission.async(scheduled, on: queue)  // due now: no timer needed
        }
        return scheduled
    }

    /// A `DispatchSourceTimer` armed with `schedule(deadline:repeating:leeway:)`: like the
    /// Date-based repeating method, but on the uptime clock.
    func scheduleOnUptimeClock(
        after delay: Duration, repeatingEvery interval: Duration, leeway: Duration,
        _ action: @escaping @Sendable () -> Void
    ) -> any Disposable {
        #if DEBUG
        ClockProbe.record(.uptime)
        #endif
        return RepeatingTimer(
            scheduler: self, start: DispatchTime.now() + .nanoseconds(delay.clampedNanoseconds),
            // At least 1 ns: Dispatch busy-fires a timer whose interval is zero (Platform notes, item 2).
            intervalNanoseconds: max(1, interval.clampedNanoseconds),
            leewayNanoseconds: leeway.clampedNanoseconds, action: action
        ) { source, start, interval, leeway in
            source.schedule(deadline: start, repeating: interval, leeway: leeway)
        }
    }
}
