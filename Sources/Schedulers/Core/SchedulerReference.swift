/// A reference to a scheduler that does not keep a ``TestScheduler`` alive: strong, unless the
/// scheduler owns its pending work (``Scheduler/storesPendingWork``), whose queue would then hold
/// whoever holds this, which would hold it. Only then weak, since a weak reference puts every
/// later retain and release of the scheduler on a slower path. Shared by `RecursiveChain`,
/// the timer sequence and ``TestScheduler/Clock``.
final class SchedulerReference: Sendable {
    private let strongScheduler: Scheduler?
    // `nonisolated(unsafe)`: written once, in `init`, and only read afterwards (the runtime makes
    // weak loads thread-safe). A `weak var` because `weak let` needs a newer toolchain.
    private nonisolated(unsafe) weak var weakScheduler: Scheduler?

    init(_ scheduler: Scheduler) {
        if scheduler.storesPendingWork {
            strongScheduler = nil
            weakScheduler = scheduler
        } else {
            strongScheduler = scheduler
            weakScheduler = nil
        }
    }

    /// The scheduler, or nil once a weakly held one is gone.
    var scheduler: Scheduler? {
        strongScheduler ?? weakScheduler
    }
}
