@_spi(SchedulersInternal) import Disposables
import Synchronization

/// One suspended task waiting for a scheduled wake-up: the machinery behind
/// `Scheduler.sleep(for:)`, `sleep(until:)` and `TestScheduler.Clock.sleep(until:tolerance:)`.
///
/// Exactly one of three things resumes the continuation, decided under the lock:
/// - the wake-up action runs: the sleep returns;
/// - the task is cancelled: the wake-up is disposed (so it no longer runs, counts or holds
///   anything) and the sleep throws `CancellationError` at once, without waiting for any
///   scheduler;
/// - the scheduler releases the wake-up without running it (a ``TestScheduler`` that is
///   deinitialised): the sleep throws `CancellationError`, rather than leaving the task
///   suspended forever with a leaked continuation.
///
/// The wake-up is scheduled first, in the caller's own job and isolation (`sleep` is
/// `nonisolated(nonsending)`), and only then does the task suspend: the operation closure of
/// `withTaskCancellationHandler` is nonisolated, so a main-actor caller hops off the main actor
/// to run it, and a wake-up scheduled there would be queued behind whatever was enqueued
/// meanwhile, not where the caller asked for it. So either end can come first, decided under
/// the lock: the wake-up may run (or be released, or the task be cancelled) before the
/// continuation exists, and the continuation then resumes at once.
final class Sleeper: Sendable {
    /// How the sleep ended before the continuation existed.
    private enum Ending {
        case woken
        case abandoned
    }

    private struct State {
        var continuation: CheckedContinuation<Void, any Error>?
        /// The pending wake-up, to dispose on cancellation.
        var wakeUp: (any Disposable)?
        var isCancelled = false
        var ending: Ending?
    }

    private let state = Lock(State())

    /// Suspends the calling task until the action that `arm` schedules runs.
    ///
    /// - Parameters:
    ///   - isolation: the caller's actor, if any: the sleep runs there, and so does the operation
    ///     of `withTaskCancellationHandler`, which captures it, so that a main-actor task arms and
    ///     resumes on the main actor without a hop off it and back.
    ///   - adoption: the wake-up of a task a ``TestScheduler`` adopted for this sleep
    ///     (TestScheduler+AdoptedTasks.swift), whose drive must be the one that runs it on.
    ///   - arm: schedules the given closure and returns its disposable; called once,
    ///     synchronously, in the caller's isolation, unless the task is already cancelled.
    static func sleep(
        isolation: isolated (any Actor)? = #isolation, adoption: AdoptedWakeUp? = nil,
        arm: (_ wake: @escaping @Sendable () -> Void) -> (any Disposable)?
    ) async throws {
        try Task.checkCancellation()
        let sleeper = Sleeper()
        sleeper.arm(arm, adoption: adoption)
        #if DEBUG
        adoption?.afterArming()
        #endif
        try await withTaskCancellationHandler {
            _ = isolation
            try await withCheckedThrowingContinuation(isolation: isolation) { continuation in
                sleeper.suspend(continuation)
            }
        } onCancel: {
            sleeper.cancel()
        }
        if let adoption { await adoption.rejoinIfLeft() }
    }

    private func arm(_ arm: (_ wake: @escaping @Sendable () -> Void) -> (any Disposable)?, adoption: AdoptedWakeUp?) {
        let call = WakeUpCall(sleeper: self)
        let wakeUp = if let adoption { arm { adoption.fire(call.fire) } } else { arm { call.fire() } }
        // Cancelled (or woken) while `arm` ran: nothing will dispose the wake-up later, so do it now.
        let stale = state.withLock { state -> (any Disposable)? in
            guard !state.isCancelled, state.ending == nil else { return wakeUp }
            state.wakeUp = wakeUp
            return nil
        }
        stale?.dispose()
    }

    private func suspend(_ continuation: CheckedContinuation<Void, any Error>) {
        let ended = state.withLock { state -> Result<Void, any Error>? in
            if state.isCancelled { return .failure(CancellationError()) }
            switch state.ending {
            case .woken: return .success(())
            case .abandoned: return .failure(CancellationError())
            case nil:
                state.continuation = continuation
                return nil
            }
        }
        if let ended { continuation.resume(with: ended) }
    }

    /// The wake-up ran.
    ///
    /// - Returns: whether this ended the sleep (not a cancellation that came first).
    @discardableResult
    fileprivate func wake() -> Bool {
        end(.woken)
    }

    /// The wake-up was released without running.
    fileprivate func abandon() {
        end(.abandoned)
    }

    @discardableResult
    private func end(_ ending: Ending) -> Bool {
        let (continuation, ended) = state.withLock { state in
            state.wakeUp = nil
            if state.isCancelled { return (nil as CheckedContinuation<Void, any Error>?, false) }
            if state.continuation == nil {
                guard state.ending == nil else { return (nil, false) }
                state.ending = ending
                return (nil, true)
            }
            return (state.continuation.take(), true)
        }
        guard let continuation else { return ended }
        if ending == .woken { continuation.resume() } else { continuation.resume(throwing: CancellationError()) }
        return ended
    }

    /// The task was cancelled: may run before `suspend`, on any thread.
    private func cancel() {
        let (continuation, wakeUp) = state.withLock { state in
            state.isCancelled = true
            return (state.continuation.take(), state.wakeUp.take())
        }
        wakeUp?.dispose()
        continuation?.resume(throwing: CancellationError())
    }
}

/// What the scheduled action holds: it wakes the sleeper when run, and tells it so when it is
/// released without having run (a no-op once the sleep is over).
private final class WakeUpCall: Sendable {
    private let sleeper: Sleeper

    init(sleeper: Sleeper) {
        self.sleeper = sleeper
    }

    @discardableResult
    func fire() -> Bool {
        sleeper.wake()
    }

    deinit {
        sleeper.abandon()
    }
}

/// The wake-up of a task a ``TestScheduler`` adopted (TestScheduler+AdoptedTasks.swift), from a
/// sleep or a timer's `next()`: the drive that runs it must also run the task on, to its next
/// suspension.
///
/// Resumed in the drive, an awaiting task's next job is enqueued there, and the hooks queue it on
/// the scheduler at `now`. But the wake-up can come first: a synchronous `advance` on another
/// thread may run it while the task, on its own thread, is between arming and awaiting. The
/// task then goes on where it is, past its `await`, without any job. So after the sleep it
/// checks where it runs, and off its scheduler it hops onto it (``rejoinIfLeft()``); and the
/// wake-up waits until the task's job, whichever of the two it is, is queued on the scheduler,
/// so that the drive runs it before it returns.
///
/// It refers to the scheduler weakly: a sleeping task does not keep its scheduler alive.
final class AdoptedWakeUp: Sendable {
    private let reference: SchedulerReference
    /// The adopted task's address: its job's.
    private let task: UInt

    /// For the running task, adopted by `scheduler`.
    init(scheduler: TestScheduler) {
        reference = SchedulerReference(scheduler)
        task = CapturedTasks.currentTaskAddress
    }

    /// Runs in a drive of the scheduler, as one of its actions: `wake` resumes the task and
    /// says whether it did (not if a cancellation came first: the task then goes on where that
    /// resumed it).
    func fire(_ wake: () -> Bool) {
        guard let scheduler = reference.scheduler as? TestScheduler else {
            _ = wake()
            return
        }
        scheduler.rejoiningTask.store(task, ordering: .relaxed)
        if wake() { scheduler.awaitRejoin() }
        scheduler.rejoiningTask.store(0, ordering: .relaxed)
    }

    #if DEBUG
    /// For tests, by scheduler: code to run in the task between arming its wake-up and
    /// awaiting it, the moment a synchronous `advance` on another thread can run the wake-up
    /// first (`aWakeUpBeforeTheTaskAwaitsStillRunsItOnInThatDrive`).
    private static let afterArmingForTests = Lock([ObjectIdentifier: @Sendable () -> Void]())

    static func setAfterArmingForTests(_ body: (@Sendable () -> Void)?, for scheduler: TestScheduler) {
        afterArmingForTests.withLock { $0[ObjectIdentifier(scheduler)] = body }
    }

    func afterArming() {
        guard let scheduler = reference.scheduler else { return }
        Self.afterArmingForTests.withLock { $0[ObjectIdentifier(scheduler)] }?()
    }
    #endif

    /// After the sleep, in the task: off the scheduler (it went on where it awaited), hop onto
    /// it, unless the wake-up has stopped waiting for it.
    nonisolated(nonsending)
    func rejoinIfLeft() async {
        guard let scheduler = reference.scheduler as? TestScheduler,
            CurrentScheduler.slot != Unmanaged.passUnretained(scheduler).toOpaque(),
            scheduler.commitToRejoin(task)
        else { return }
        await withTaskExecutorPreference(scheduler) {}
    }
}
