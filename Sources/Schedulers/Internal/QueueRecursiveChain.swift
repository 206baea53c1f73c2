@_spi(SchedulersInternal) import Disposables
import Dispatch

/// A `scheduleRecursive` chain on a ``QueueScheduler`` that posts itself onto the queue, instead
/// of going through a full `schedule` (and its disposable) per iteration as ``RecursiveChain``
/// does.
///
/// Every iteration is one `async` of the same closure (it captures only the ``Driver``, so it
/// needs no context of its own): Dispatch's block is the only allocation per iteration, as for
/// raw GCD re-posting itself. The stack stays flat because every run starts from its own block.
///
/// RAC's rules hold as in ``RecursiveChain``: `reschedule` calls made while a run is in progress
/// are counted and posted when the last run in progress returns (one `async` each, so other work
/// on the queue still interleaves with the chain in FIFO order); a call made at any other time
/// posts at once. The state is under a lock, so a concurrent queue (runs overlapping) is fine.
///
/// Disposal: queued blocks cannot be taken back from Dispatch, so disposing marks the chain and
/// releases the action at once; the blocks still queued then run, see the mark and return. What
/// they hold until then is the small driver, never the action or its captures.
final class QueueRecursiveChain: Disposable {
    typealias Action = RecursiveChain.Action

    private struct State {
        var isDisposed = false
        /// Released at disposal, or when the driver goes (nothing can ask for another run then).
        var action: Action?
        /// Runs of the action in progress (more than one only on a concurrent queue).
        var activeRuns = 0
        /// Reschedule requests made while a run is in progress, posted when the last one returns.
        var requestedDuringRun = 0
    }

    private let state: Lock<State>

    private init(action: @escaping Action) {
        state = Lock(State(action: action))
    }

    /// Starts a chain: posts the first run of `action` onto `scheduler`'s queue.
    static func start(on scheduler: QueueScheduler, _ action: @escaping Action) -> QueueRecursiveChain {
        let chain = QueueRecursiveChain(action: action)
        Driver(chain: chain, scheduler: scheduler).post(1)
        return chain
    }

    var isDisposed: Bool {
        state.withLock { $0.isDisposed }
    }

    /// Stops the chain: no run starts after this returns, and the action is released.
    func dispose() {
        let action = state.withLock { state -> Action? in
            state.isDisposed = true
            return state.action.take()
        }
        // Released here, outside the lock: its captures' deinitialisers are user code.
        _ = action
    }

    /// Counts a run in and hands out the action, unless the chain is disposed.
    private func beginRun() -> Action? {
        state.withLock { state in
            guard !state.isDisposed, let action = state.action else { return nil }
            state.activeRuns += 1
            return action
        }
    }

    /// Counts a run out; the last one to return gets the requests made meanwhile to post.
    private func endRun() -> Int {
        state.withLock { state in
            state.activeRuns -= 1
            guard state.activeRuns == 0, !state.isDisposed else { return 0 }
            defer { state.requestedDuringRun = 0 }
            return state.requestedDuringRun
        }
    }

    /// A `reschedule` call: true when it is to be posted at once (no run is in progress).
    private func request() -> Bool {
        state.withLock { state in
            guard !state.isDisposed else { return false }
            guard state.activeRuns == 0 else {
                state.requestedDuringRun += 1
                return false
            }
            return true
        }
    }

    /// Called when the driver goes: no block and no `reschedule` closure is left to run the
    /// action again, so it is released even while someone still holds the chain's disposable.
    private func releaseAction() {
        let action = state.withLock { $0.action.take() }
        _ = action
    }

    /// What each posted block and each `reschedule` closure captures: the chain, and the
    /// scheduler the runs happen on (held strongly, as a pending `schedule` holds it).
    private final class Driver: Sendable {
        let chain: QueueRecursiveChain
        let scheduler: QueueScheduler

        init(chain: QueueRecursiveChain, scheduler: QueueScheduler) {
            self.chain = chain
            self.scheduler = scheduler
        }

        deinit {
            chain.releaseAction()
        }

        /// One run, on the queue, as the current scheduler.
        func run() {
            guard let action = chain.beginRun() else { return }
            scheduler.performAsCurrentScheduler {
                action { self.reschedule() }
            }
            let requested = chain.endRun()
            if requested > 0 { post(requested) }
        }

        func reschedule() {
            if chain.request() { post(1) }
        }

        func post(_ iterations: Int) {
            for _ in 0..<iterations {
                scheduler.queue.async { self.run() }
            }
        }
    }
}
