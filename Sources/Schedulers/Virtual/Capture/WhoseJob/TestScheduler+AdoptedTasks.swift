#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Tasks that join a ``TestScheduler``'s world by sleeping on it from outside every world: the
/// `TestClock` habit, made exact.
///
/// A plain or detached task, or an `async` test's own task, that sleeps on the scheduler's
/// `clock`, `sleep(for:)` or `sleep(until:)` while running outside every world used to wake in a
/// drive and then go on on the cooperative pool, beside the driving thread: `advance(by:)`
/// returned before or after its effects, by timing. Now the sleep adopts the task:
///
/// - **By identity only.** The task is entered in ``CapturedTaskIdentity`` as adopted. A job of
///   it is this scheduler's only when it is enqueued where the scheduler is running work: its
///   wake-up, in a drive, resumes it there, so its next job is queued at `now` and the same
///   drive runs it, on to its next suspension, before it returns. Resumed from anywhere else (a
///   Dispatch callback, its cancellation, an actor), the job goes where it would have gone: the
///   test never promised that stretch virtual time, and no drive may ever come for it. The
///   scheduler does not become a capturing one (rule 1 of ``CapturedTasks`` stays off), so no
///   other job enqueued on the driving thread (the test's own task, a test running beside it) is
///   taken, and the tasks an adopted task starts are not taken for it either.
/// - **Whatever the timing of its thread.** The task arms its wake-up a few instructions before
///   it awaits. A synchronous `advance` on another thread can run the wake-up in between; the
///   task then goes on past its `await` where it is, with no job for the hooks to see. So the
///   wake-up waits (``awaitRejoin()``, spinning: the task is running, a few instructions away)
///   until the task's next job is queued here, and the task, finding itself off the scheduler
///   after its sleep, hops onto it (`Sleeper`'s `AdoptedWakeUp`). Either way the drive that ran
///   the wake-up runs the task on.
/// - **Not for a task isolated to an actor** (a `@MainActor` task) that sleeps on the actor
///   (the concrete clock's `sleep`, which runs in the caller's isolation): its resumption goes
///   to the actor, not to the global executor the hooks see, so the drive cannot run it. It is
///   reported as before, with the fixes for a main-actor task (DetachedSleepWarning.swift).
///   Through `any Clock` no isolation is passed and the sleep runs off the actor, so the task
///   joins for the sleep; its way back onto the actor is then not part of the drive (the runtime
///   sends it to the actor directly): a synchronous `advance` holding the main actor returns
///   before it, and it runs once the test lets go of the actor
///   (`aMainActorTaskGoesBackToTheMainActorAfterTheDrive`). A capture on the main actor makes
///   that stretch exact too.
///
/// While a scheduler has adopted a task, its drives hold the capture hooks (``DriverLock``), so
/// that they see the resumption; the hooks forward every other job untouched.
extension TestScheduler {
    /// The running task, outside every world, sleeps on this scheduler: it joins this
    /// scheduler's world for the drives that resume it.
    ///
    /// - Returns: false where it cannot (a runtime without the global-enqueue hook).
    func adoptCurrentTask() -> Bool {
        guard GlobalEnqueueHook.isAvailable, CapturedTasks.currentTaskAddress != 0 else { return false }
        countIn()
        driver.holdsCaptureHooks.store(true, ordering: .relaxed)
        CapturedTaskIdentity.adoptCurrentTask(for: self)
        return true
    }
}

extension TestScheduler {
    /// Asked for every job about to be queued here: whether it is the job of the task whose
    /// wake-up waits for it. Asked before the job is queued (the wake-up has set the task by
    /// then: it sets it before it resumes the task, which commits to hop only after that).
    @inline(__always)
    func awaitsRejoin(_ job: UnownedJob) -> Bool {
        rejoinWaiting(for: job) != nil
    }

    /// `job`, which ``awaitsRejoin(_:)`` named, is in the queue: the wake-up may let its drive
    /// go on, which then finds the job. Looked up again: a wake-up that gave up waiting may
    /// have handed the slot to another task since.
    func noteRejoin(of job: UnownedJob) {
        guard let waiting = rejoinWaiting(for: job) else { return }
        _ = rejoiningTask.compareExchange(expected: waiting, desired: 0, ordering: .releasing)
    }

    /// The value of ``rejoiningTask`` if it names the task of `job`.
    @inline(__always)
    private func rejoinWaiting(for job: UnownedJob) -> UInt? {
        let waiting = rejoiningTask.load(ordering: .relaxed)
        return waiting != 0 && waiting & ~1 == CapturedTasks.address(of: job) ? waiting : nil
    }

    /// In the wake-up, on the driving thread: waits until ``noteRejoin(of:)`` says the task's
    /// job is queued. The task is running meanwhile (resumed here, its job is queued before
    /// this is called; else it is on its own thread, past its `await`), so the wait yields
    /// rather than blocks.
    /// Bounded: after a second the drive goes on, and a task that has not yet committed to
    /// hop here (``commitToRejoin(_:)``) then goes on where it is.
    func awaitRejoin() {
        var spins = 0
        while true {
            let waiting = rejoiningTask.load(ordering: .acquiring)
            if waiting == 0 { return }
            spins += 1
            if spins < 1_000 {
                sched_yield()
                continue
            }
            if spins > 11_000, waiting & 1 == 0,
                rejoiningTask.compareExchange(expected: waiting, desired: 0, ordering: .relaxed).exchanged
            {
                return
            }
            usleep(100)
        }
    }

    /// In the task, off the scheduler after its sleep: whether the wake-up still waits for it,
    /// which then waits until its hop is queued.
    func commitToRejoin(_ task: UInt) -> Bool {
        rejoiningTask.compareExchange(expected: task, desired: task | 1, ordering: .relaxed).exchanged
    }
}
