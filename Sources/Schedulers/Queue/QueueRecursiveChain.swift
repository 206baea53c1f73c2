import Dispatch
import Synchronization

/// A `scheduleRecursive` chain on a ``QueueScheduler`` that posts itself onto the queue, instead
/// of going through a full `schedule` (and its disposable) per iteration as ``RecursiveChain``
/// does.
///
/// Every iteration is one submission of the same ``Driver`` object (``FunctionSubmission``:
/// `dispatch_async_f` with the driver as context, so no allocation per iteration; where only
/// `async` is available, one block, as for raw GCD re-posting itself). The stack stays flat
/// because every run starts from the queue.
///
/// RAC's rules hold as in ``RecursiveChain``: `reschedule` calls made while a run is in progress
/// are counted and posted when the last run in progress returns (one submission each, so other work
/// on the queue still interleaves with the chain in FIFO order); a call made at any other time
/// posts at once. Runs may overlap (a concurrent queue): the state is one atomic word (runs in
/// progress, requests made meanwhile, disposed, released), so an iteration costs three atomic
/// read-modify-writes and no lock (a lock per step cost ~45 instructions each, measured).
///
/// Disposal: queued iterations cannot be taken back from Dispatch, so disposing marks the chain and
/// releases the action at once; the iterations still queued then run, see the mark and return. What
/// they hold until then is the small driver, never the action or its captures.
final class QueueRecursiveChain: Disposable, @unchecked Sendable {
    // `@unchecked`: `action` is called only by a run that has counted itself in while the word
    // said neither disposed nor released, and released once, by whoever sets `released` while
    // no run is counted in. The word's acquire/release ordering orders the two.
    typealias Action = RecursiveChain.Action

    private static let disposed = 1
    /// The action has been released: set once, by `dispose()` or the last run after it, or when
    /// the driver goes.
    private static let released = 2
    private static let oneRun = 1 << 2
    private static let runs = ((1 << 30) - 1) << 2
    private static let oneRequest = 1 << 32
    private static let requests = Int.max & ~((1 << 32) - 1)

    private let word = Atomic<Int>(0)
    /// The action, retained once here and released once, by whoever sets `released`. Held
    /// unmanaged so that a run, which the word guarantees cannot overlap the release, calls it
    /// through a borrowed reference: no retain and release of the action per iteration.
    private let action: Unmanaged<ActionBox>

    private final class ActionBox {
        let action: Action
        init(_ action: @escaping Action) { self.action = action }
    }

    private init(action: @escaping Action) {
        self.action = .passRetained(ActionBox(action))
    }

    /// Starts a chain: posts the first run of `action` onto `scheduler`'s queue.
    static func start(on scheduler: QueueScheduler, _ action: @escaping Action) -> QueueRecursiveChain {
        let chain = QueueRecursiveChain(action: action)
        Driver(chain: chain, scheduler: scheduler).post(1)
        return chain
    }

    var isDisposed: Bool {
        word.load(ordering: .acquiring) & QueueRecursiveChain.disposed != 0
    }

    /// Moves the word from what `transform` is given to what it returns, atomically.
    @inline(__always)
    private func update(_ transform: (Int) -> Int) -> (old: Int, new: Int) {
        var old = word.load(ordering: .relaxed)
        while true {
            let new = transform(old)
            let (exchanged, original) = word.compareExchange(
                expected: old, desired: new, ordering: .acquiringAndReleasing)
            if exchanged { return (old, new) }
            old = original
        }
    }

    /// Clears the action, once the caller has set `released` while no run was counted in.
    /// Outside any critical section: its captures' deinitialisers are user code.
    private func releaseActionNow() {
        action.release()
    }

    /// Stops the chain: no run starts after this returns, and the action is released now, or
    /// when the run in progress (on another thread) returns.
    func dispose() {
        let (old, new) = update { old in
            var new = old | QueueRecursiveChain.disposed
            if old & QueueRecursiveChain.runs == 0 { new |= QueueRecursiveChain.released }
            return new
        }
        if old & QueueRecursiveChain.released == 0, new & QueueRecursiveChain.released != 0 { releaseActionNow() }
    }

    /// Counts a run in, unless the chain is disposed or released; returns whether it may run.
    @inline(__always)
    private func beginRun() -> Bool {
        let (old, new) = update { old in
            old & (QueueRecursiveChain.disposed | QueueRecursiveChain.released) != 0 ? old : old + QueueRecursiveChain.oneRun
        }
        return old != new
    }

    /// Calls the action; only between a successful `beginRun()` and its `endRun()`, while the
    /// count of runs keeps it from being released.
    @inline(__always)
    private func callAction(_ reschedule: @escaping @Sendable () -> Void) {
        action._withUnsafeGuaranteedRef { $0.action(reschedule) }
    }

    /// Counts a run out; the last one to return gets the requests made meanwhile to post (none
    /// once disposed: it releases the action instead).
    @inline(__always)
    private func endRun() -> Int {
        let (old, new) = update { old in
            var new = old - QueueRecursiveChain.oneRun
            if new & QueueRecursiveChain.runs == 0 {
                new &= ~QueueRecursiveChain.requests
                if new & QueueRecursiveChain.disposed != 0 { new |= QueueRecursiveChain.released }
            }
            return new
        }
        if old & QueueRecursiveChain.released == 0, new & QueueRecursiveChain.released != 0 {
            releaseActionNow()
            return 0
        }
        guard new & QueueRecursiveChain.runs == 0 else { return 0 }
        return (old & QueueRecursiveChain.requests) / QueueRecursiveChain.oneRequest
    }

    /// A `reschedule` call: true when it is to be posted at once (no run is in progress);
    /// counted for the run in progress otherwise.
    @inline(__always)
    private func request() -> Bool {
        let (old, _) = update { old in
            if old & (QueueRecursiveChain.disposed | QueueRecursiveChain.released) != 0 { return old }
            return old & QueueRecursiveChain.runs != 0 ? old + QueueRecursiveChain.oneRequest : old
        }
        return old & (QueueRecursiveChain.disposed | QueueRecursiveChain.released | QueueRecursiveChain.runs) == 0
    }

    /// Called when the driver goes: no block and no `reschedule` closure is left to run the
    /// action again (each holds the driver, and so does every run), so it is released even
    /// while someone still holds the chain's disposable.
    private func driverGone() {
        let (old, _) = update { $0 | QueueRecursiveChain.released }
        if old & QueueRecursiveChain.released == 0 { releaseActionNow() }
    }

    /// What each queued iteration and each `reschedule` closure captures (one reference, so the
    /// closures need no context of their own): the chain, and the scheduler the runs happen on,
    /// held strongly, as a pending `schedule` holds it.
    private final class Driver: SubmittedWork {
        let chain: QueueRecursiveChain
        let scheduler: QueueScheduler

        init(chain: QueueRecursiveChain, scheduler: QueueScheduler) {
            self.chain = chain
            self.scheduler = scheduler
        }

        static let runSubmitted: @convention(c) (UnsafeMutableRawPointer?) -> Void = { context in
            Unmanaged<Driver>.fromOpaque(context!).takeRetainedValue().run()
        }

        deinit {
            chain.driverGone()
        }

        /// One run, on the queue, as the current scheduler.
        func run() {
            guard chain.beginRun() else { return }
            scheduler.performAsCurrentScheduler {
                chain.callAction { self.reschedule() }
            }
            let requested = chain.endRun()
            if requested > 0 { post(requested) }
        }

        func reschedule() {
            if chain.request() { post(1) }
        }

        func post(_ iterations: Int) {
            for _ in 0..<iterations {
                scheduler.submission.async(self, on: scheduler.queue)
            }
        }
    }
}
