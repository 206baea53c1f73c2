@_spi(SchedulersInternal) import Disposables
import Synchronization

/// Tasks that joined a ``TestScheduler``'s world by sleeping on it from outside every world:
/// the `TestClock` habit, made exact.
///
/// A plain task (or a detached one, or an `async` test's own task) that sleeps on the
/// scheduler's `clock`, `sleep(for:)`, `sleep(until:)` or `timer(every:)` while running outside
/// the scheduler used to wake in a drive and then go on on the cooperative pool, beside the
/// driving thread: `advance(by:)` returned before or after its effects, by timing. Now the
/// sleep enters the task here, and the scheduler takes the hooks for its drives, so the
/// wake-up's resumption, enqueued while the drive runs the wake-up on its thread, is captured
/// (CapturedTasks.swift, rule 1) and runs in that drive, on to the task's next suspension,
/// before the drive returns: `scheduler.advance(by: 5)` returns with the woken task's effects
/// done, every run, with no yield and no report.
///
/// Only to its next suspension: when that run of the task ends, its capture is forgotten
/// (``endRun(of:)``), so what resumes it next decides where it goes on, as for any task outside
/// a world: another sleep on the scheduler adopts it again; anything else (an actor call that
/// had to wait, a Dispatch callback) resumes it on the pool, unreported, since the test never
/// promised it virtual time. (Staying captured, such a resumption would wait for a drive that
/// a test awaiting the task's value never makes.)
///
/// Keyed by task address and checked against the task's ID, so a later task at a reused
/// address is not taken for an adopted one. Entries stay as long as the scheduler: a few
/// dozen bytes per adopted task.
final class AdoptedTasks: Sendable {
    private let tasks = Lock([UInt: UInt64]())
    /// How many entries: while 0, ``endRun(of:)`` costs one load.
    private let count = Atomic<Int>(0)

    /// Enters the running task (its sleep on the scheduler is about to be armed).
    func adoptCurrentTask() {
        let address = CapturedTasks.currentTaskAddress
        guard address != 0 else { return }
        let id = CapturedTaskIdentity.taskID(ofTaskAt: address)
        let added = tasks.withLock { tasks in tasks.updateValue(id, forKey: address) == nil }
        if added { count.add(1, ordering: .relaxed) }
    }

    /// A run of `job`'s task on the scheduler has ended (it suspended or finished): if the
    /// task is an adopted one, its capture ends here.
    @inline(__always)
    func endRun(of job: UnownedJob) {
        guard count.load(ordering: .relaxed) > 0, CapturedTaskIdentity.isTask(job) else { return }
        let address = CapturedTasks.address(of: job)
        let id = CapturedTaskIdentity.taskID(ofTaskAt: address)
        guard tasks.withLock({ $0[address] == id }) else { return }
        CapturedTaskIdentity.forgetTask(at: address, id: id)
    }
}
