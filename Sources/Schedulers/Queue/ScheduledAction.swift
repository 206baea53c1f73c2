import Synchronization

/// A one-shot action queued on a ``QueueScheduler``: the disposable `schedule` hands back, and
/// the thing the queue runs.
///
/// One atomic word decides between the queue starting it and a caller disposing it, so a
/// disposed action never starts, and whichever side wins releases the closure (and the
/// scheduler) at once, not at the action's due time, which may be years away.
final class ScheduledAction: Disposable, @unchecked Sendable {
    // `@unchecked`: `action` and `scheduler` are set in `init` and afterwards read and cleared
    // only by the single thread that moves `state` away from `pending`.
    private static let pending = 0
    private static let started = 1
    private static let disposed = 2

    private let state = Atomic<Int>(ScheduledAction.pending)
    private var action: (@Sendable () -> Void)?
    private var scheduler: Scheduler?

    init(scheduler: Scheduler, action: @escaping @Sendable () -> Void) {
        self.scheduler = scheduler
        self.action = action
    }

    var isDisposed: Bool {
        state.load(ordering: .acquiring) & ScheduledAction.disposed != 0
    }

    /// Marks it disposed; if it had not started, releases the closure before returning.
    func dispose() {
        let old = state.bitwiseOr(ScheduledAction.disposed, ordering: .acquiringAndReleasing).oldValue
        guard old == ScheduledAction.pending else { return }
        action = nil
        scheduler = nil
    }

    /// Runs the action as its scheduler's current action, unless it was disposed first.
    /// Called on the scheduler's queue.
    func run() {
        guard state.compareExchange(
            expected: ScheduledAction.pending, desired: ScheduledAction.started, ordering: .acquiringAndReleasing
        ).exchanged else { return }
        let action = self.action.take()!
        let scheduler = self.scheduler.take()!
        scheduler.performAsCurrentScheduler(action)
    }
}
