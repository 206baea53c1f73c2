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
        /// The user's action; nil once disposed, so that it (and what it captured) is released
        /// at disposal even while a caller keeps the disposable.
        var action: (@Sendable (_ reschedule: @escaping @Sendable () -> Void) -> Void)?
    }

    /// Weak, so that a chain pending on a ``TestScheduler`` does not keep the scheduler alive.
    private weak let scheduler: Scheduler?
    private let state: Lock<State>

    init(scheduler: Scheduler, action: @escaping @Sendable (_ reschedule: @escaping @Sendable () -> Void) -> Void) {
        self.scheduler = scheduler
        state = Lock(State(action: action))
    }

    var isDisposed: Bool {
        state.withLock { $0.isDisposed }
    }

    /// Stops the chain: no iteration starts after this returns; the pending one is disposed.
    /// The action is released before this returns, unless an iteration is running it right now
    /// (then when that iteration returns).
    func dispose() {
        let (pending, action) = state.withLock { state -> ((any Disposable)?, Any?) in
            guard !state.isDisposed else { return (nil, nil) }
            state.isDisposed = true
            return (state.pending.take(), state.action.take())
        }
        pending?.dispose()
        _ = action  // released here, outside the lock: its captures may run arbitrary deinit code
    }

    /// Schedules one more iteration (or counts it, if another thread is already scheduling).
    func scheduleNext() {
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
            let iteration = PendingIteration(chain: self)
            let scheduled = scheduler.schedule { iteration.run() }
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
    fileprivate func runIteration() {
        guard let action = state.withLock({ $0.isDisposed ? nil : $0.action }) else { return }
        let iteration = Iteration(chain: self)
        action { iteration.reschedule() }
        for _ in 0..<iteration.finish() {
            scheduleNext()
        }
    }

    /// What the scheduler holds for the pending iteration. If the scheduler releases it without
    /// ever running it (a dropped ``TestScheduler`` discards what is pending), the chain can
    /// never continue: it disposes itself, releasing the action even if someone keeps the
    /// chain's disposable.
    private final class PendingIteration: Sendable {
        private let chain: RecursiveChain
        private let ran = Atomic<Bool>(false)

        init(chain: RecursiveChain) {
            self.chain = chain
        }

        func run() {
            ran.store(true, ordering: .relaxed)
            chain.runIteration()
        }

        deinit {
            if !ran.load(ordering: .relaxed) { chain.dispose() }
        }
    }

    /// Counts the reschedule requests of one run until the run returns, then passes later ones
    /// straight to the chain.
    private final class Iteration: Sendable {
        /// Requests counted so far, or `finished` once the run has returned.
        private let requests = Atomic<Int>(0)
        private static let finished = -1
        private let chain: RecursiveChain

        init(chain: RecursiveChain) {
            self.chain = chain
        }

        func reschedule() {
            var current = requests.load(ordering: .relaxed)
            while current != Iteration.finished {
                let (exchanged, original) = requests.compareExchange(
                    expected: current, desired: current + 1, ordering: .acquiringAndReleasing)
                if exchanged { return }
                current = original
            }
            chain.scheduleNext()
        }

        /// Ends the synchronous phase and returns how many requests it collected.
        func finish() -> Int {
            requests.exchange(Iteration.finished, ordering: .acquiringAndReleasing)
        }
    }
}
