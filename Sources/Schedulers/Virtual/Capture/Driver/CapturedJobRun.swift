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
///
/// A hop is the commonest job a captured task makes (on Swift 6.3.1, six on the way into and out
/// of one `clock.sleep(for:)`), so after a task's first hop in a run has gone through the hook's
/// whole resolution (CapturedTasks.swift) and been parked here by its scheduler, the slot says so
/// (``HopSlot/Flags/known``), and the task's next hops in the same run are parked by the hook at once
/// (``parkKnownHop(_:)``): the answer cannot have changed in between, since the running
/// scheduler that took it is alive and a task stays with the scheduler that first took it
/// (the one change, a captured task beginning an asynchronous capture of its own, clears the
/// bit: ``forgetKnownHop(of:)``).
enum CapturedJobRun {
    /// Runs `job` with `runJob`, then, in turn, any job parked meanwhile (``parkHop(_:)``).
    ///
    /// The slot holds the running job's address with ``HopSlot/Flags/running`` and its run's other
    /// flags; a parked job's address has only ``HopSlot/Flags/known`` at most. What the slot held
    /// before is put back after, so that a job that drives the scheduler (a nested run) leaves the
    /// outer run's slot alone.
    ///
    /// - Parameter isYield: `job` is a `Task.yield()`'s continuation job (YieldedJob.swift),
    ///   whose whole purpose is to enqueue its task again: that task's job is parked too, so a
    ///   yield costs one trip through the queue, and a round of yields is one round.
    /// - Parameter onStandIn: `runJob` runs jobs on the main actor's stand-in: only jobs enqueued
    ///   there are parked for it, and only jobs enqueued on the scheduler otherwise.
    /// - Parameter isKnown: `job` was captured and resolved to the scheduler running it: its
    ///   task is known from the start.
    /// - Parameter runJob: runs one job.
    static func run(
        _ job: UnownedJob, isYield: Bool = false, onStandIn: Bool = false, isKnown: Bool = false,
        _ runJob: (UnownedJob) -> Void
    ) {
        let outer = HopSlot.current
        var next: UnownedJob? = job
        let path: HopSlot.Flags = onStandIn ? .standIn : []
        var flags: HopSlot.Flags = [.running]
        flags.formUnion(path)
        if isYield { flags.insert(.yield) }
        if isKnown { flags.insert(.known) }
        while let job = next {
            let running = HopSlot(address: CapturedTasks.address(of: job), flags)
            HopSlot.current = running
            runJob(job)
            let parked = HopSlot.current
            next = parked == running ? nil : unsafeBitCast(parked.address, to: UnownedJob.self)
            // Known to its scheduler: its next hops skip the resolution.
            flags = HopSlot.Flags.running.union(path).union(parked.flags.intersection(.known))
        }
        HopSlot.current = outer
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
        let slot = HopSlot.current
        guard slot.flags.contains(.running), slot.flags.contains(.standIn) == onStandIn else { return false }
        let address = CapturedTasks.address(of: job)
        guard slot.address == address || (slot.flags.contains(.yield) && CapturedTaskIdentity.isTask(job)) else {
            return false
        }
        // Parked by the scheduler running it, which the resolution chose: known from now on.
        HopSlot.current = HopSlot(address: address, .known)
        return true
    }

    /// The running task at `task`, if it runs here, is no longer known to its scheduler: it has
    /// begun an asynchronous capture, and its hops are never captured while that runs.
    static func forgetKnownHop(of task: UInt) {
        let slot = HopSlot.current
        guard slot.flags.contains(.running), slot.address == task else { return }
        HopSlot.current = HopSlot(address: slot.address, slot.flags.subtracting(.known))
    }

    /// Parks `job` at once if it is the running task hopping again in a run where its scheduler
    /// parked a hop of it before (``HopSlot/Flags/known``): the global-enqueue hook's fast path,
    /// which skips the resolution (CapturedTasks.swift) and the scheduler's queue.
    /// - Returns: whether it was parked; if not, resolve and enqueue it as usual.
    @inline(__always)
    static func parkKnownHop(_ job: UnownedJob) -> Bool {
        let slot = HopSlot.current
        // Running, known, on the scheduler's own path (not the stand-in's); a yield or not.
        guard slot.flags.intersection([.running, .known, .standIn]) == [.running, .known],
            slot.address == CapturedTasks.address(of: job)
        else { return false }
        HopSlot.current = HopSlot(address: slot.address, .known)
        return true
    }
}

/// The calling thread's hop slot (CapturedHopSlot.h): one word, a job's address with ``Flags``
/// in its four low bits, which are free because jobs are 16-byte aligned.
struct HopSlot: Equatable {
    struct Flags: OptionSet {
        let rawValue: UInt

        /// A job runs here, at the address; clear, the address is a job parked to run after it.
        static let running = Flags(rawValue: 1)
        /// The running job is a `Task.yield()`'s continuation (YieldedJob.swift).
        static let yield = Flags(rawValue: 2)
        /// The run is on the main actor's stand-in, not on the scheduler.
        static let standIn = Flags(rawValue: 4)
        /// The task's scheduler has parked a hop of it in this run: its next hops skip the
        /// resolution (``CapturedJobRun/parkKnownHop(_:)``).
        static let known = Flags(rawValue: 8)

        static let all: Flags = [.running, .yield, .standIn, .known]
    }

    private let word: UInt

    init(address: UInt, _ flags: Flags) {
        word = address | flags.rawValue
    }

    private init(word: UInt) {
        self.word = word
    }

    var address: UInt { word & ~Flags.all.rawValue }

    var flags: Flags { Flags(rawValue: word & Flags.all.rawValue) }

    static var current: HopSlot {
        @inline(__always) get { HopSlot(word: UInt(bitPattern: schedulers_captured_hop_slot_get())) }
        @inline(__always) set { schedulers_captured_hop_slot_set(UnsafeMutableRawPointer(bitPattern: newValue.word)) }
    }
}
