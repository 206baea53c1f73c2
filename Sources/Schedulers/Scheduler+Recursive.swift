import Synchronization

/// The state of one `scheduleRecursive` chain on a scheduler other than the immediate one:
/// RAC's `-scheduleRecursiveBlock:addingToDisposable:`, rebuilt so memory stays flat.
///
/// RAC added a compound disposable per iteration and removed it when the iteration ran (its
/// issue #272 was that this leaked); this chain keeps exactly one slot, the `schedule` that is
/// currently pending, and replaces it each iteration.
///
/// Two mechanisms keep the stack flat:
/// - reschedule requests made while the action runs are counted (``Iteration``) and issued
///   after it returns, as RAC does;
/// - only one thread at a time is inside `scheduler.schedule` for this chain. A request that
///   arrives meanwhile (because an inline scheduler ran the next iteration inside that very
///   call, or because another thread got there first) is counted and issued by that thread once
///   its call returns. This is what RAC lacked for schedulers that may run inline, such as
///   the subscription scheduler inside another scheduler's action.
final class RecursiveChain: Disposable {
    private struct State {
        var isDisposed = false
        /// The pending `schedule`, to dispose when the chain is. Replaced every iteration.
        var pending: (any Disposable)?
        /// Whether some thread is inside `scheduler.schedule` for this chain right now.
        var isScheduling = false
        /// Requests that arrived while `isScheduling`.
        var deferred = 0
    }

    typealias Action = @Sendable (_ reschedule: @escaping @Sendable () -> Void) -> Void

    /// Weak, so that a chain pending on a ``TestScheduler`` does not keep the scheduler alive.
    private weak let scheduler: Scheduler?
    private let state = Lock(State())
    // The chain does not hold the user's action: the pending `schedule` (and a running
    // iteration) does. So disposing the chain, or dropping a TestScheduler with the chain
    // pending, releases the action even while someone still holds the chain's disposable.

    init(scheduler: Scheduler) {
        self.scheduler = scheduler
    }

    var isDisposed: Bool {
        state.withLock { $0.isDisposed }
    }

    /// Stops the chain: no iteration starts after this returns; the pending one is disposed.
    func dispose() {
        let pending = state.withLock { state -> (any Disposable)? in
            guard !state.isDisposed else { return nil }
            state.isDisposed = true
            return state.pending.take()
        }
        pending?.dispose()
    }

    /// Schedules one more iteration of `action` (or counts it, if another thread is already
    /// scheduling: that thread issues it, with the same action).
    func scheduleNext(_ action: @escaping Action) {
        let proceed = state.withLock { state -> Bool in
            guard !state.isDisposed else { return false }
            guard !state.isScheduling else {
                state.deferred += 1
                return false
            }
            state.isScheduling = true
            return true
        }
        guard proceed else { return }

        while true {
            guard let scheduler else {
                // The scheduler is gone (a dropped TestScheduler): nothing can run any more.
                state.withLock { $0.isScheduling = false }
                dispose()
                return
            }
            let scheduled = scheduler.schedule { [self] in runIteration(action) }
            let (again, discard) = state.withLock { state -> (Bool, (any Disposable)?) in
                guard !state.isDisposed else {
                    state.isScheduling = false
                    return (false, scheduled)
                }
                state.pending = scheduled
                if state.deferred > 0 {
                    state.deferred -= 1
                    return (true, nil)
                }
                state.isScheduling = false
                return (false, nil)
            }
            discard?.dispose()
            if !again { return }
        }
    }

    /// One run of the action, wherever the scheduler runs it.
    private func runIteration(_ action: @escaping Action) {
        guard !isDisposed else { return }
        let iteration = Iteration(chain: self, action: action)
        action { iteration.reschedule() }
        for _ in 0..<iteration.finish() {
            scheduleNext(action)
        }
    }

    /// Counts the reschedule requests of one run until the run returns, then passes later ones
    /// straight to the chain.
    private final class Iteration: Sendable {
        /// Requests counted so far, or `finished` once the run has returned.
        private let requests = Atomic<Int>(0)
        private static let finished = -1
        private let chain: RecursiveChain
        private let action: Action

        init(chain: RecursiveChain, action: @escaping Action) {
            self.chain = chain
            self.action = action
        }

        func reschedule() {
            var current = requests.load(ordering: .relaxed)
            while current != Iteration.finished {
                let (exchanged, original) = requests.compareExchange(
                    expected: current, desired: current + 1, ordering: .acquiringAndReleasing)
                if exchanged { return }
                current = original
            }
            chain.scheduleNext(action)
        }

        /// Ends the synchronous phase and returns how many requests it collected.
        func finish() -> Int {
            requests.exchange(Iteration.finished, ordering: .acquiringAndReleasing)
        }
    }
}
