@_spi(SchedulersInternal) import Disposables
import Synchronization

/// Makes driving a ``TestScheduler`` serial: one thread at a time runs its actions.
///
/// Without it, two threads calling `advance` at once would each pop and run actions, so two
/// actions of one scheduler would run concurrently, breaking the promise that every scheduler
/// here is serial. A thread that drives while another is driving waits on the lock until that
/// driving call returns.
///
/// Re-entrant on the driving thread: an action may drive its own scheduler further (`advance`
/// from inside an action, or a job that does). The owner's identity is kept in an atomic so
/// that the re-entrant call recognises itself without taking the lock again (it is not
/// recursive, and would trap).
final class DriverLock: Sendable {
    private let lock = Lock(())
    /// The thread inside `drive`, or 0.
    private let owner = Atomic<UInt>(0)
    /// Set once the scheduler has run `withCapturedTasks`: from then on each drive holds the
    /// capture hooks (``CaptureHooks``), so that the jobs its captured tasks enqueue while they
    /// run, and their main-actor work, are captured, even after the capture's body has returned.
    let holdsCaptureHooks = Atomic<Bool>(false)

    /// Runs `body` as the only driver: at once if this thread is already driving, else once the
    /// thread that is driving has returned.
    func drive(_ body: () -> Void) {
        let me = currentThreadIdentity()
        // Only this thread ever stores `me`, so a relaxed load that sees it is this thread's own store.
        if owner.load(ordering: .relaxed) == me {
            body()
            return
        }
        // User code runs while the lock is held, by design: this lock exists to keep other
        // drivers out for exactly that long. Re-entry from this thread never reaches it (above).
        lock.withLock { _ in
            owner.store(me, ordering: .relaxed)
            let tenures = holdsCaptureHooks.load(ordering: .relaxed) ? CaptureHooks.acquire() : nil
            defer {
                tenures?.release()
                owner.store(0, ordering: .relaxed)
            }
            body()
        }
    }
}
