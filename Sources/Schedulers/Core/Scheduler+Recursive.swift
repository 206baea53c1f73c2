@_spi(SchedulersInternal) import Disposables
/// The state of one `scheduleRecursive` chain on a scheduler other than the immediate one:
/// RAC's `-scheduleRecursiveBlock:addingToDisposable:`, rebuilt so memory stays flat and an
/// iteration costs one `schedule` and nothing more.
///
/// RAC added a compound disposable per iteration and removed it when the iteration ran (its
/// issue #272 was that this leaked); this chain keeps one slot per iteration it has requested
/// and not yet started (one, unless an action calls `reschedule` more than once), and each run
/// takes its own slot out as it starts. Disposing the chain disposes every slot, so no
/// requested iteration stays queued holding the action.
///
/// Two mechanisms keep the stack flat:
/// - reschedule requests made while the action runs are counted and issued after it returns,
///   as RAC does;
/// - only one thread at a time is inside `scheduler.schedule` for this chain. A request that
///   arrives meanwhile (because an inline scheduler ran the next iteration inside that very
///   call, or because another thread got there first) is counted and issued by that thread once
///   its call returns. This is what RAC lacked for schedulers that may run inline, such as
///   the subscription scheduler inside another scheduler's action.
///
/// The action sits in the chain's state, which lets it go when the chain is disposed, and when
/// the ``Driver`` goes (only pending work and outstanding `reschedule` closures hold the driver).
/// So disposing the chain releases the action before `dispose()` returns, even while someone
/// keeps a `reschedule` closure or the chain's disposable; dropping a TestScheduler with the chain
/// pending releases it too. A run in progress holds its own reference, so the action it is
/// running is released when that run returns, never under it.
final class RecursiveChain: Disposable {
    private struct State {
        var isDisposed = false
        /// nil once disposed, or once the driver has gone.
        var action: Action?
        /// The iterations requested and not yet started, each with its `schedule`'s disposable
        /// (nil while that `schedule` call is still in progress), to dispose when the chain is.
        /// Almost always one entry: a linear search beats hashing.
        var pending: ContiguousArray<(id: UInt64, scheduled: (any Disposable)?)> = []
        var nextID: UInt64 = 0
        /// Whether some thread is inside `scheduler.schedule` for this chain right now.
        var isScheduling = false
        /// Iterations still to schedule by the thread that `isScheduling`.
        var deferred = 0
        /// Runs of the action in progress (more than one only on a concurrent queue).
        var activeRuns = 0
        /// Reschedule requests made while a run is in progress, issued when the last one returns.
        var requestedDuringRun = 0

        /// A slot for an iteration about to be scheduled.
        mutating func register() -> UInt64 {
            let id = nextID
            nextID &+= 1
            pending.append((id, nil))
            return id
        }

        /// Records the disposable of iteration `id`, unless it has already started.
        mutating func attach(_ scheduled: (any Disposable)?, to id: UInt64) {
            if let index = pending.firstIndex(where: { $0.id == id }) { pending[index].scheduled = scheduled }
        }

        /// Takes iteration `id`'s slot out as it starts.
        mutating func start(_ id: UInt64) {
            if let index = pending.firstIndex(where: { $0.id == id }) { pending.remove(at: index) }
        }
    }

    typealias Action = @Sendable (_ reschedule: @escaping @Sendable () -> Void) -> Void

    /// The scheduler, held strongly unless it stores its pending work (a ``TestScheduler``, or a
    /// virtual-time subclass of your own): its queue would hold this chain, which would hold it,
    /// and nothing pending may keep such a scheduler alive. See ``SchedulerReference``.
    private let reference: SchedulerReference
    private let state: Lock<State>

    private init(scheduler: Scheduler, action: @escaping Action) {
        reference = SchedulerReference(scheduler)
        state = Lock(State(action: action))
    }

    private var scheduler: Scheduler? {
        reference.scheduler
    }

    /// Starts a chain: schedules the first run of `action` on `scheduler`.
    static func start(on scheduler: Scheduler, _ action: @escaping Action) -> RecursiveChain {
        let chain = RecursiveChain(scheduler: scheduler, action: action)
        let driver = Driver(chain: chain)
        chain.schedule(driver, iterations: 1)
        return chain
    }

    var isDisposed: Bool {
        state.withLock { $0.isDisposed }
    }

    /// Stops the chain: no iteration starts after this returns; every pending one is disposed.
    func dispose() {
        // The action is released here, outside the lock (its captures' deinitialisers are user
        // code), unless a run in progress still holds it: then when that run returns.
        let (pending, action) = state.withLock {
            state -> (ContiguousArray<(id: UInt64, scheduled: (any Disposable)?)>, Action?) in
            guard !state.isDisposed else { return ([], nil) }
            state.isDisposed = true
            defer {
                state.pending = []
                state.action = nil
            }
            return (state.pending, state.action)
        }
        for entry in pending { entry.scheduled?.dispose() }
        _ = action
    }

    /// The driver has gone: nothing can run the action again.
    private func driverGone() {
        let action = state.withLock { state -> Action? in
            defer { state.action = nil }
            return state.action
        }
        _ = action
    }

    /// What every scheduled closure and every `reschedule` closure captures: one reference, so
    /// the closures need no context allocation of their own.
    private final class Driver: Sendable {
        let chain: RecursiveChain

        init(chain: RecursiveChain) {
            self.chain = chain
        }

        deinit {
            chain.driverGone()
        }

        /// Run `id` of the action, wherever the scheduler runs it.
        func run(_ id: UInt64) {
            guard let action = chain.beginRun(id) else { return }
            action { self.reschedule() }
            chain.endRun(self)
        }

        func reschedule() {
            chain.request(self)
        }
    }

    /// Counts run `id` in and takes its slot out, unless the chain is disposed.
    /// - Returns: the action, for this run to hold while it runs; nil when it must not run.
    private func beginRun(_ id: UInt64) -> Action? {
        state.withLock { state in
            guard !state.isDisposed, let action = state.action else { return nil }
            state.start(id)
            state.activeRuns += 1
            return action
        }
    }

    /// Counts a run out; the last one to return issues the requests made meanwhile.
    private func endRun(_ driver: Driver) {
        let requested = state.withLock { state -> Int in
            state.activeRuns -= 1
            guard state.activeRuns == 0 else { return 0 }
            defer { state.requestedDuringRun = 0 }
            return state.requestedDuringRun
        }
        if requested > 0 { schedule(driver, iterations: requested) }
    }

    /// A `reschedule` call: deferred until the run in progress returns, else issued at once.
    private func request(_ driver: Driver) {
        let now = state.withLock { state -> Bool in
            guard state.activeRuns == 0 else {
                state.requestedDuringRun += 1
                return false
            }
            return true
        }
        if now { schedule(driver, iterations: 1) }
    }

    /// Schedules `iterations` more runs, one `schedule` each, or hands them to the thread that
    /// is already scheduling for this chain.
    private func schedule(_ driver: Driver, iterations: Int) {
        var next = state.withLock { state -> UInt64? in
            guard !state.isDisposed else { return nil }
            guard !state.isScheduling else {
                state.deferred += iterations
                return nil
            }
            state.isScheduling = true
            state.deferred += iterations - 1
            return state.register()
        }

        while let id = next {
            guard let scheduler else {
                // The scheduler is gone (a dropped TestScheduler): nothing can run any more.
                state.withLock { $0.isScheduling = false }
                dispose()
                return
            }
            let scheduled = scheduler.schedule { driver.run(id) }
            let discard: (any Disposable)?
            (next, discard) = state.withLock { state -> (UInt64?, (any Disposable)?) in
                guard !state.isDisposed else {
                    // `dispose()` found this slot still empty: disposing it is ours to do.
                    state.isScheduling = false
                    return (nil, scheduled)
                }
                state.attach(scheduled, to: id)
                if state.deferred > 0 {
                    state.deferred -= 1
                    return (state.register(), nil)
                }
                state.isScheduling = false
                return (nil, nil)
            }
            discard?.dispose()
        }
    }
}
