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
final class Sleeper: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Void, any Error>?
        /// The pending wake-up, to dispose on cancellation.
        var wakeUp: (any Disposable)?
        var isCancelled = false
    }

    private let state = Lock(State())

    /// Suspends the calling task until the action that `arm` schedules runs.
    ///
    /// - Parameter arm: schedules the given closure and returns its disposable; called once,
    ///   synchronously, unless the task is already cancelled.
    static func sleep(arm: (_ wake: @escaping @Sendable () -> Void) -> (any Disposable)?) async throws {
        let sleeper = Sleeper()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                sleeper.suspend(continuation, arm: arm)
            }
        } onCancel: {
            sleeper.cancel()
        }
    }

    private func suspend(
        _ continuation: CheckedContinuation<Void, any Error>,
        arm: (_ wake: @escaping @Sendable () -> Void) -> (any Disposable)?
    ) {
        let isCancelled = state.withLock { state in
            if !state.isCancelled { state.continuation = continuation }
            return state.isCancelled
        }
        if isCancelled {
            continuation.resume(throwing: CancellationError())
            return
        }
        let call = WakeUpCall(sleeper: self)
        let wakeUp = arm { call.fire() }
        // Cancelled (or woken) while `arm` ran: nothing will dispose the wake-up later, so do it now.
        let stale = state.withLock { state -> (any Disposable)? in
            guard state.continuation != nil else { return wakeUp }
            state.wakeUp = wakeUp
            return nil
        }
        stale?.dispose()
    }

    /// The wake-up ran.
    fileprivate func wake() {
        let continuation = state.withLock { state in
            state.wakeUp = nil
            return state.continuation.take()
        }
        continuation?.resume()
    }

    /// The wake-up was released without running.
    fileprivate func abandon() {
        let continuation = state.withLock { state in
            state.wakeUp = nil
            return state.continuation.take()
        }
        continuation?.resume(throwing: CancellationError())
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
    let sleeper: Sleeper

    init(sleeper: Sleeper) {
        self.sleeper = sleeper
    }

    func fire() {
        sleeper.wake()
    }

    deinit {
        sleeper.abandon()
    }
}
