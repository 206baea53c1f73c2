@_spi(SchedulersInternal) import Disposables
import Synchronization

/// Which tasks a ``TestScheduler`` captured, by the tasks' own identity, so that a captured
/// task stays in virtual time whichever thread resumes it.
///
/// Why identity: the runtime hands the global-enqueue hook a job, and for a task's job the job
/// *is* the task. When a continuation of a captured task is resumed from a thread outside any
/// task (a Dispatch callback, a completion handler, a NotificationCenter observer, an
/// `AsyncStream` fed from a Dispatch timer), nothing on that thread says the task was captured:
/// no scheduler is running there, no capture is, and no task-local value can be read. The job
/// itself can be recognised: every task job a capture takes is entered here with the scheduler
/// that took it, keyed by the task's address and checked against its 64-bit task ID (a counter
/// the runtime never reuses), so a later task at a reused address is not mistaken for it.
///
/// Entries live as long as their scheduler: they refer to it weakly (through its
/// ``CaptureMarker``), and its deinit removes them (``forget(_:)``). A task that ends leaves its
/// entry until then: a few dozen bytes per captured task, per live scheduler.
///
/// Cost: one lock and one hash lookup per task job while the hooks are installed, taken only
/// when a task job is enqueued; none while no scheduler captures.
enum CapturedTaskIdentity {
    private struct Entry {
        let taskID: UInt64
        let marker: CaptureMarker
        /// Entered by a sleep on the scheduler from outside every world, not by a capture
        /// (``adoptCurrentTask(for:)``): the task is taken only while that scheduler runs work
        /// on the resuming thread, and the tasks it starts are not taken for it.
        var isAdopted = false
        /// Its main-actor job went to the real main actor, out of virtual time (a synchronous
        /// drive off the main actor: ``MainActorWarning``): the task belongs to no world from
        /// then on, so that where its jobs go never depends on whether some capture, of this
        /// test or of one running beside it, holds the runtime's hooks at that moment.
        var hasLeft = false
    }

    /// A task's address as a key, hashed with one multiplication instead of SipHash, which was
    /// a tenth of a captured task's cost in the hook (callgrind): the addresses are the
    /// runtime's allocations, not input anyone could choose to collide.
    private struct TaskAddress: Hashable {
        let address: UInt

        func hash(into hasher: inout Hasher) {
            hasher.combine(address)
        }

        // `Dictionary` asks for this where a type provides it, and takes a bucket from the low
        // bits: the address without its alignment bits, multiplied (Fibonacci hashing), with
        // the well-mixed high half folded down onto them.
        func _rawHashValue(seed: Int) -> Int {
            let product = (address >> 4) &* 0x9E37_79B9_7F4A_7C15
            return Int(bitPattern: product ^ (product >> 32)) ^ seed
        }
    }

    private static let entries = Lock([TaskAddress: Entry]())
    /// How many entries exist: while 0, lookups cost one atomic load.
    private static let count = Atomic<Int>(0)

    /// The runtime's `JobKind::Task`: the job is a task, whose address is the task's.
    private static let taskKind: UInt8 = 0

    /// Whether `job` is a task (not an actor's or a continuation's job).
    @inline(__always)
    static func isTask(_ job: UnownedJob) -> Bool {
        let header = unsafeBitCast(job, to: UnsafeRawPointer.self)
        return header.load(fromByteOffset: 4 * MemoryLayout<UInt>.size, as: UInt8.self) == taskKind
    }

    /// The scheduler `job`'s task was captured by, entering it for `candidate` first if it was
    /// not entered yet (and `candidate` is not nil). An entry for a task that is gone (another
    /// task at the same address) is replaced.
    ///
    /// - Returns: the scheduler the task belongs to, or nil (an adopted task enqueued where its
    ///   scheduler runs no work belongs to none).
    static func claim(_ job: UnownedJob, for candidate: TestScheduler?) -> TestScheduler? {
        guard isTask(job) else { return candidate }
        guard candidate != nil || count.load(ordering: .relaxed) > 0 else { return nil }
        let address = TaskAddress(address: CapturedTasks.address(of: job))
        let taskID = taskID(of: job)
        let newMarker = candidate?.captureMarker
        let marker = entries.withLock { entries -> CaptureMarker? in
            // Its scheduler alive: the task is still that scheduler's.
            if let entry = entries[address], entry.taskID == taskID, entry.marker.isOpen {
                // Left: nobody's, and no capture takes it over.
                if entry.hasLeft { return nil }
                guard entry.isAdopted else { return entry.marker }
                // Adopted: its scheduler's only where that scheduler runs work (its wake-up, in
                // a drive), and nobody's elsewhere: no other capture takes it over either.
                return entry.marker === newMarker || entry.marker.isRunningHere ? entry.marker : nil
            }
            guard let newMarker else { return nil }
            if entries.updateValue(Entry(taskID: taskID, marker: newMarker), forKey: address) == nil {
                count.add(1, ordering: .relaxed)
            }
            return newMarker
        }
        guard let marker else { return nil }
        // The entry's scheduler wins: a task stays with the scheduler that first took it.
        guard marker !== newMarker else { return candidate }
        return marker.scheduler
    }

    /// The scheduler that captured the running task, or nil (outside a task, or not captured;
    /// an adopted task is not captured: it belongs to no world between its runs in a drive).
    static func schedulerOfCurrentTask() -> TestScheduler? {
        schedulerOfCurrentTask(includingLeft: false)
    }

    /// The scheduler that captured the running task: with `includingLeft`, also one whose task
    /// has left its world (``leave(_:)``), for the warning that names why it runs outside.
    static func schedulerOfCurrentTask(includingLeft: Bool) -> TestScheduler? {
        guard count.load(ordering: .relaxed) > 0 else { return nil }
        let address = CapturedTasks.currentTaskAddress
        guard address != 0 else { return nil }
        let job = unsafeBitCast(address, to: UnownedJob.self)
        let taskID = taskID(of: job)
        let marker = entries.withLock { entries -> CaptureMarker? in
            guard let entry = entries[TaskAddress(address: address)], entry.taskID == taskID, !entry.isAdopted,
                includingLeft || !entry.hasLeft
            else {
                return nil
            }
            return entry.marker
        }
        return marker?.scheduler
    }

    /// `job`'s task leaves its world for good: its main-actor job is handed to the real main
    /// actor. Nothing then answers the main actor's executor, or takes a job, for it by its
    /// identity (a job of an actor or a continuation is not a task's, and nothing changes).
    static func leave(_ job: UnownedJob) {
        withEntry(of: job) { $0.hasLeft = true }
    }

    /// Whether `job` is a job of a task that left its world (``leave(_:)``).
    static func hasLeft(_ job: UnownedJob) -> Bool {
        withEntry(of: job) { $0.hasLeft } ?? false
    }

    /// `body` on the entry of `job`'s task, under the lock; nil if `job` is not a task's or
    /// its task has no entry.
    private static func withEntry<R: Sendable>(of job: UnownedJob, _ body: (inout Entry) -> R) -> R? {
        guard isTask(job) else { return nil }
        let address = TaskAddress(address: CapturedTasks.address(of: job))
        let taskID = taskID(of: job)
        return entries.withLock { entries in
            guard var entry = entries[address], entry.taskID == taskID else { return nil }
            defer { entries[address] = entry }
            return body(&entry)
        }
    }

    /// Enters the running task, which sleeps on `scheduler` from outside every world, as
    /// adopted by it (AdoptedTasks in TestScheduler+AdoptedTasks.swift): from now on, a job of
    /// the task enqueued while `scheduler` runs work on the enqueuing thread (its wake-up, in a
    /// drive) is `scheduler`'s. A task a capture took already keeps its entry.
    static func adoptCurrentTask(for scheduler: TestScheduler) {
        let address = CapturedTasks.currentTaskAddress
        guard address != 0 else { return }
        let taskID = taskID(of: unsafeBitCast(address, to: UnownedJob.self))
        let marker = scheduler.captureMarker
        let added = entries.withLock { entries -> Bool in
            let key = TaskAddress(address: address)
            if let entry = entries[key], entry.taskID == taskID, entry.marker.isOpen, entry.marker === marker { return false }
            return entries.updateValue(Entry(taskID: taskID, marker: marker, isAdopted: true), forKey: key) == nil
        }
        if added { count.add(1, ordering: .relaxed) }
    }

    /// Enters the running task for `scheduler` (the body of an asynchronous capture).
    static func enterCurrentTask(for scheduler: TestScheduler) {
        let address = CapturedTasks.currentTaskAddress
        guard address != 0 else { return }
        _ = claim(unsafeBitCast(address, to: UnownedJob.self), for: scheduler)
    }

    /// Removes the entries of `scheduler`, and of schedulers already gone (its deinit).
    static func forget(_ marker: CaptureMarker) {
        guard count.load(ordering: .relaxed) > 0 else { return }
        let removed = entries.withLock { entries -> Int in
            let before = entries.count
            entries = entries.filter { $0.value.marker !== marker && $0.value.marker.isOpen }
            return before - entries.count
        }
        count.subtract(removed, ordering: .relaxed)
    }

    /// How many tasks are entered (for tests).
    static var entryCount: Int { count.load(ordering: .relaxed) }

    private static func taskID(of job: UnownedJob) -> UInt64 {
        _swiftTaskGetJobTaskID(job)
    }
}

/// The runtime's own accessor: the task's 64-bit ID for a task's job.
@_silgen_name("swift_task_getJobTaskId")
private func _swiftTaskGetJobTaskID(_ job: UnownedJob) -> UInt64
