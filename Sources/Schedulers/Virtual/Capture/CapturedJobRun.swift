import CurrentSchedulerSlot

/// How a ``TestScheduler`` runs a job it captured from the global executor, and why a captured
/// task's hop does not go to the back of the queue.
///
/// A captured job runs with the scheduler as its task executor (so that its sleeps reach the
/// scheduler: RealClockSleepInterception.swift). But a captured task prefers no executor, so
/// whenever it enters nonisolated code (the start of its body, the return from an actor call)
/// the runtime sees a task executor it did not ask for, and enqueues the task again for the
/// global executor, which the hook captures again (measured on Swift 6.3.1: every `Task {}`
/// started inside a capture ran its first line only at its second job). Queued at `now` like
/// any captured job, that hop landed behind everything enqueued meanwhile: `Task { a }` then
/// `scheduler.schedule { b }` ran `b, a`, and a captured task cost two trips through the
/// queue where a task that prefers the scheduler costs one.
///
/// So a captured job runs through ``run(_:on:)``, which marks the thread with it (a C thread-local
/// slot, `CapturedHopSlot.h`); when the task that is running enqueues itself again for the global
/// executor, ``parkHop(_:)`` keeps the job in the slot instead of queuing it, and the run goes on
/// with it as soon as the job returns, as the global executor would have without us (it never
/// leaves the thread it is on for a hop to the executor it is already on). Other jobs are
/// queued as before, so order among tasks and actions is the order they were enqueued in.
enum CapturedJobRun {
    /// Runs `job` with `runJob`, then, in turn, any job parked meanwhile (``parkHop(_:)``).
    ///
    /// The slot holds the running job's address with the low bit set (jobs are 16-byte aligned,
    /// so the low bits are free), bit 1 for a yield's job and bit 2 for a run on the stand-in; a
    /// parked job's address has them clear. What the slot held before is put back after, so that a job that drives the
    /// scheduler (a nested run) leaves the outer run's slot alone.
    ///
    /// - Parameter isYield: `job` is a `Task.yield()`'s continuation job (YieldedJob.swift),
    ///   whose whole purpose is to enqueue its task again: that task's job is parked too, so a
    ///   yield costs one trip through the queue, and a round of yields is one round.
    /// - Parameter onStandIn: `runJob` runs jobs on the main actor's stand-in: only jobs enqueued
    ///   there are parked for it (bit 2), and only jobs enqueued on the scheduler otherwise.
    ///   - runJob: runs one job; its second argument is true for a parked job (a hop, or the
    ///     task a yield resumed), which begins a new stretch of the task's work.
    static func run(
        _ job: UnownedJob, isYield: Bool = false, onStandIn: Bool = false, _ runJob: (UnownedJob, _ isParked: Bool) -> Void
    ) {
        let outer = schedulers_captured_hop_slot_get()
        var next: UnownedJob? = job
        let path: UInt = onStandIn ? 4 : 0
        var mode: UInt = (isYield ? 3 : 1) | path
        var isParked = false
        while let job = next {
            let running = CapturedTasks.address(of: job) | mode
            schedulers_captured_hop_slot_set(UnsafeMutableRawPointer(bitPattern: running))
            runJob(job, isParked)
            isParked = true
            let parked = UInt(bitPattern: schedulers_captured_hop_slot_get())
            next = parked == running ? nil : unsafeBitCast(parked, to: UnownedJob.self)
            mode = 1 | path
        }
        schedulers_captured_hop_slot_set(outer)
    }

    /// Whether `job` is the job running on this thread (its task enqueues itself again).
    @inline(__always)
    static func isRunningTask(_ job: UnownedJob) -> Bool {
        let slot = UInt(bitPattern: schedulers_captured_hop_slot_get())
        return slot & 1 == 1 && slot & ~15 == CapturedTasks.address(of: job)
    }

    /// Keeps `job` to run right after the job running on this thread returns, if it is that
    /// job's task enqueuing itself again (a hop), or the task a running yield resumes. The
    /// runtime clears the current task before it enqueues a hop, so the job is known by its
    /// address, which is its task's.
    /// - Returns: whether it was kept; if not, queue it as usual.
    ///
    /// - Parameter onStandIn: whether `job` is enqueued on the main actor's stand-in (else on
    ///   the scheduler): it is kept only for a run of the same path.
    @inline(__always)
    static func parkHop(_ job: UnownedJob, onStandIn: Bool = false) -> Bool {
        let slot = UInt(bitPattern: schedulers_captured_hop_slot_get())
        guard slot & 1 == 1, (slot & 4 == 4) == onStandIn else { return false }
        let address = CapturedTasks.address(of: job)
        guard slot & ~15 == address || (slot & 2 == 2 && CapturedTaskIdentity.isTask(job)) else { return false }
        schedulers_captured_hop_slot_set(UnsafeMutableRawPointer(bitPattern: address))
        return true
    }
}
