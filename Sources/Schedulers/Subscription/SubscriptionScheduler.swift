import Foundation

/// Where subscription work runs (RACSubscriptionScheduler). Get the shared instance from
/// ``Scheduler/subscription``.
///
/// - ``schedule(_:)`` runs the action inline, on the calling thread and before returning nil,
///   when ``Scheduler/current`` is non-nil (on the main thread that is ``Scheduler/main``);
///   otherwise it queues it on this scheduler's own background ``TargetQueueScheduler``.
/// - Delayed and repeating work goes to `Scheduler.current ?? background`, so a delay scheduled
///   from inside a ``TestScheduler`` action is virtual.
public final class SubscriptionScheduler: Scheduler, @unchecked Sendable {
    /// Where work goes when no scheduler is current.
    private let background = TargetQueueScheduler(
        priority: .default, name: "org.schedulers.subscriptionScheduler.backgroundScheduler")

    public override init(name: String? = nil) {
        super.init(name: name ?? "org.schedulers.SubscriptionScheduler.subscriptionScheduler")
    }

    /// Inline when a scheduler is current (returns nil), else queued on the background scheduler.
    ///
    /// - Parameter action: the work to run.
    /// - Returns: nil when it ran inline; else a disposable that stops it from starting.
    @discardableResult
    public override func schedule(_ action: @escaping @Sendable () -> Void) -> (any Disposable)? {
        // `isSet` is `Scheduler.current != nil` without taking a reference to the current scheduler.
        guard CurrentScheduler.isSet else { return background.schedule(action) }
        action()
        return nil
    }

    /// On `Scheduler.current ?? background`.
    ///
    /// - Parameters:
    ///   - date: when to run it, in the target scheduler's time.
    ///   - action: the work to run.
    /// - Returns: the target scheduler's disposable.
    @discardableResult
    public override func schedule(after date: Date, _ action: @escaping @Sendable () -> Void) -> (any Disposable)? {
        target.schedule(after: date, action)
    }

    /// On `Scheduler.current ?? background`, so the delay counts in that scheduler's time.
    ///
    /// - Parameters:
    ///   - delay: seconds of the target scheduler's time.
    ///   - action: the work to run.
    /// - Returns: the target scheduler's disposable.
    @discardableResult
    public override func schedule(afterDelay delay: TimeInterval, _ action: @escaping @Sendable () -> Void) -> (any Disposable)? {
        target.schedule(afterDelay: delay, action)
    }

    /// On `Scheduler.current ?? background`.
    ///
    /// - Parameters:
    ///   - date: the first run, in the target scheduler's time.
    ///   - interval: seconds between runs.
    ///   - leeway: how many seconds late a run may be.
    ///   - action: the work to run each time.
    /// - Returns: the target scheduler's disposable.
    @discardableResult
    public override func schedule(
        after date: Date, repeatingEvery interval: TimeInterval, withLeeway leeway: TimeInterval = 0,
        _ action: @escaping @Sendable () -> Void
    ) -> (any Disposable)? {
        target.schedule(after: date, repeatingEvery: interval, withLeeway: leeway, action)
    }

    /// `Scheduler.current ?? background`'s ``Scheduler/now``: the clock its relative methods use.
    public override var now: Date {
        target.now
    }

    /// On `Scheduler.current ?? background`, in that scheduler's time.
    ///
    /// - Parameters:
    ///   - delay: how long to wait, on that scheduler's clock.
    ///   - action: the work to run there.
    /// - Returns: that scheduler's disposable.
    @discardableResult
    public override func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> (any Disposable)? {
        target.schedule(after: delay, action)
    }

    /// On `Scheduler.current ?? background`, in that scheduler's time.
    ///
    /// - Parameters:
    ///   - delay: until the first run, on that scheduler's clock.
    ///   - interval: between runs; must be greater than zero.
    ///   - leeway: how late a run may be; zero or more.
    ///   - action: the work to run there at every occurrence.
    /// - Returns: that scheduler's disposable.
    @discardableResult
    public override func schedule(
        after delay: Duration, repeatingEvery interval: Duration, leeway: Duration = .zero,
        _ action: @escaping @Sendable () -> Void
    ) -> (any Disposable)? {
        target.schedule(after: delay, repeatingEvery: interval, leeway: leeway, action)
    }

    private var target: Scheduler {
        Scheduler.current ?? background
    }
}
