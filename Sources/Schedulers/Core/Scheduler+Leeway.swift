import Foundation

extension Scheduler {
    /// Schedules `action` to run first at `date`, then every `interval` seconds until disposed,
    /// up to `leeway` seconds late: the same call as
    /// ``schedule(after:repeatingEvery:withLeeway:_:)``, spelled with the `leeway:` label that
    /// the `Duration` form ``schedule(after:repeatingEvery:leeway:_:)-(Duration,Duration,Duration,_)`` uses, so one label
    /// serves both.
    ///
    /// It forwards to `schedule(after:repeatingEvery:withLeeway:_:)`, the RAC-compatible method
    /// a subclass overrides, so an override of that method is reached through either spelling.
    /// The action runs where that method runs it: on this scheduler, as ``current``. To leave
    /// out the leeway, leave out the label too (`schedule(after:repeatingEvery:_:)`): this
    /// spelling has no default, so a call without a leeway always means the method it forwards to.
    ///
    /// - Parameters:
    ///   - date: the first run; a past date means as soon as possible.
    ///   - interval: seconds between runs; must be finite and greater than zero.
    ///   - leeway: how many seconds late a run may be, letting the system coalesce wake-ups;
    ///     must be zero or more (not NaN).
    ///   - action: the work to run each time, on this scheduler, as ``current``.
    /// - Returns: a disposable that stops future runs. A run already in progress completes.
    @discardableResult
    public func schedule(
        after date: Date, repeatingEvery interval: TimeInterval, leeway: TimeInterval,
        _ action: @escaping @Sendable () -> Void
    ) -> (any Disposable)? {
        schedule(after: date, repeatingEvery: interval, withLeeway: leeway, action)
    }
}
