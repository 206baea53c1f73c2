import CurrentSchedulerSlot
@_spi(SchedulersInternal) import Disposables
import Synchronization

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Which ``TestScheduler``, if any, takes a job enqueued here and now: a global job (through
/// ``GlobalEnqueueHook``) or the start or resumption of main-actor work (through
/// ``MainExecutorHook``, which answers with the scheduler's ``MainActorStandIn``).
///
/// Four rules, in this order:
/// 1. Work a capturing scheduler is running on this thread (its actions and jobs run as
///    `Scheduler.current`): that scheduler. So a task stays with the scheduler that ran it, even
///    after `withCapturedTasks` has returned. A Dispatch block of its world (one that world code
///    submitted, running with the world's clock: WorldDispatchWork.swift) counts as such work:
///    a task a completion handler starts is the world's.
/// 2. The innermost synchronous `withCapturedTasks` running on this thread, for code of the task
///    that called it (or, outside any task, code that runs in no task) and of the tasks it
///    starts synchronously (`Task.immediate`); not for the tasks a run loop spun inside the body
///    runs, which the body did not start.
/// 3. The job's own task, if a capture took it before (``CapturedTaskIdentity``): a captured
///    task resumed from anywhere, a Dispatch callback included, stays captured. Every task job
///    rules 1, 2 and 4 capture is entered there, so the tasks a test starts, and the tasks they
///    start, are known wherever they run.
/// 4. The task that enqueues, if it is captured (rule 3's table): a task started by a captured
///    task running elsewhere (on an actor) is captured too.
///
/// Only rule 3 sees work arriving from outside virtual time: a job resumed where no capture,
/// no scheduler and no captured task is running. ``Resolution/isFromOutside`` tells it.
///
/// The task that calls the asynchronous `withCapturedTasks` is never captured: it drives the
/// capture's world while the body (a captured task) runs (CapturedBodyDriver.swift).
///
/// The hooks ask for every job in the process, so the common answer ("nobody captures") is
/// quick: while no live scheduler has ever captured, one relaxed atomic load. Rules 1 and 2 are
/// thread-local reads; rules 3 and 4 one lookup under a lock, for task jobs only.
enum CapturedTasks {
    /// The innermost synchronously capturing scheduler on this thread, unretained: it is set
    /// only for the duration of `withCapturedTasks`, which keeps the scheduler alive meanwhile.
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let status = pthread_key_create(&key, nil)
        precondition(status == 0, "withCapturedTasks: pthread_key_create failed with \(status)")
        return key
    }()

    /// The raw slot, so a capture can restore exactly what it found.
    static var slot: UnsafeMutableRawPointer? {
        get { pthread_getspecific(key) }
        set { pthread_setspecific(key, newValue) }
    }

    /// The task (its address; 0 outside a task) that began the innermost synchronous capture on
    /// this thread. Rule 2 holds only for it: code that a run loop spun inside the body runs
    /// (XCTest's waits, `RunLoopBlocker`) belongs to other tasks, which the body did not start.
    private static let taskKey: pthread_key_t = {
        var key = pthread_key_t()
        let status = pthread_key_create(&key, nil)
        precondition(status == 0, "withCapturedTasks: pthread_key_create failed with \(status)")
        return key
    }()

    static var slotTask: UInt {
        get { UInt(bitPattern: pthread_getspecific(taskKey)) }
        set { pthread_setspecific(taskKey, UnsafeRawPointer(bitPattern: newValue)) }
    }

    /// The run-loop depth (``RunLoopNesting``) at which the innermost synchronous capture on this
    /// thread began. Another task running here at that depth was started synchronously by the
    /// body (`Task.immediate`, `addImmediateTask`): it is the body's, where a task a run loop
    /// drains runs one level deeper.
    private static let depthKey: pthread_key_t = {
        var key = pthread_key_t()
        let status = pthread_key_create(&key, nil)
        precondition(status == 0, "withCapturedTasks: pthread_key_create failed with \(status)")
        return key
    }()

    static var slotDepth: Int {
        get { Int(bitPattern: pthread_getspecific(depthKey)) }
        set { pthread_setspecific(depthKey, UnsafeRawPointer(bitPattern: newValue)) }
    }

    /// Whether code running here belongs to the innermost synchronous capture's body: the body's
    /// own code, or a task the body started synchronously (see ``slotDepth``).
    ///
    /// Only the body and what it runs synchronously run on this thread at the body's own depth
    /// while it runs: a `Task.immediate` child (also while it hops, when the runtime has cleared
    /// the current task), and the jobs a drive inside the body runs, which rule 1 takes first.
    /// What a run loop spun inside the body drains runs one level deeper.
    static var isInsideSynchronousBody: Bool {
        RunLoopNesting.depth == slotDepth || currentCaptureOwner == slotTask
    }

    /// Who is running here, as a synchronous capture records its caller: the task's address, or
    /// outside any task the run-loop depth (``RunLoopNesting``), shifted, with the low bit set.
    /// Outside any task (an XCTest method on the main thread), the depth is what tells the
    /// body's own code from the main-queue blocks a run loop spun inside it drains (those run
    /// the runtime's main-actor jobs, also outside any task).
    static var currentCaptureOwner: UInt {
        let task = currentTaskAddress
        return task != 0 ? task : UInt(bitPattern: RunLoopNesting.depth) << 1 | 1
    }

    /// The capture a task was started in, or by a task started in (CaptureLifetime.swift): it
    /// decides nothing about capturing, it only keeps the global-enqueue hook installed while
    /// such a task may still be resumed.
    @TaskLocal static var lifetime: CaptureLifetime?

    /// Live schedulers that have captured at least once. While it is 0 the hooks forward every
    /// job at the cost of this load.
    static let capturingSchedulers = Atomic<Int>(0)

    /// The tasks driving asynchronous captures, as task addresses: never captured.
    private static let bodies = TaskAddressList()

    /// Who takes a job, and whether it came from outside virtual time.
    struct Resolution {
        let scheduler: TestScheduler
        /// Found by the job's own identity alone (rule 3): resumed where nothing captured runs.
        let isFromOutside: Bool
    }

    /// The scheduler that takes a global job enqueued here and now, or nil.
    ///
    /// - Parameter job: the job, so that an asynchronous capture's driver is never captured and
    ///   a captured task is known by its identity.
    static func capturingScheduler(for job: UnownedJob) -> Resolution? {
        guard capturingSchedulers.load(ordering: .relaxed) > 0 else { return nil }
        if isBody(address(of: job)) { return nil }
        if let scheduler = runningOrCapturing() {
            return CapturedTaskIdentity.claim(job, for: scheduler).map { Resolution(scheduler: $0, isFromOutside: false) }
        }
        if let scheduler = CapturedTaskIdentity.claim(job, for: nil) {
            // Not from outside where the scheduler runs work: an adopted task's wake-up.
            let isInside = CurrentScheduler.slot == Unmanaged.passUnretained(scheduler).toOpaque()
                || CapturedTaskIdentity.schedulerOfCurrentTask() === scheduler
            return Resolution(scheduler: scheduler, isFromOutside: !isInside)
        }
        guard let scheduler = CapturedTaskIdentity.schedulerOfCurrentTask() else { return nil }
        return CapturedTaskIdentity.claim(job, for: scheduler).map { Resolution(scheduler: $0, isFromOutside: false) }
    }

    /// The world the code running here and now belongs to (rules 1, 2 and 4), or nil: also the
    /// scheduler whose stand-in answers a main-executor lookup made here and now.
    static func world() -> TestScheduler? {
        guard capturingSchedulers.load(ordering: .relaxed) > 0 else { return nil }
        return runningOrCapturing() ?? CapturedTaskIdentity.schedulerOfCurrentTask()
    }

    /// Whether code running here and now is inside `scheduler`'s world: rules 1, 2 and 4.
    static func isInside(_ scheduler: TestScheduler) -> Bool {
        runningOrCapturing() === scheduler || CapturedTaskIdentity.schedulerOfCurrentTask() === scheduler
    }

    /// Rules 1 and 2.
    private static func runningOrCapturing() -> TestScheduler? {
        if let running = CurrentScheduler.slot, UInt(bitPattern: running) > 2 {
            // No retain until it is known to capture: the hooks run for every job.
            let captures = Unmanaged<Scheduler>.fromOpaque(running)._withUnsafeGuaranteedRef { scheduler in
                type(of: scheduler) == TestScheduler.self
                    && unsafeDowncast(scheduler, to: TestScheduler.self).hasCapturedTasks
            }
            // Alive: it is running work on this thread.
            if captures { return Unmanaged<TestScheduler>.fromOpaque(running).takeUnretainedValue() }
        }
        // Alive: its `withCapturedTasks` is running on this thread, for the task that began it.
        if let capturing = slot, isInsideSynchronousBody {
            return Unmanaged<TestScheduler>.fromOpaque(capturing).takeUnretainedValue()
        }
        return schedulerOfDispatchBlock()
    }

    /// Rule 1 for a Dispatch block of a world: the world's scheduler, if it is alive and has
    /// captured. (Its actions and jobs set the same clock, but are found above first.)
    private static func schedulerOfDispatchBlock() -> TestScheduler? {
        guard let clock = schedulers_world_clock_get(), let owner = clock.pointee.owner else { return nil }
        guard let scheduler = Unmanaged<WorldDispatchWork>.fromOpaque(owner).takeUnretainedValue().scheduler,
            scheduler.hasCapturedTasks
        else { return nil }
        return scheduler
    }

    /// Marks `task` (an asynchronous capture's body) as never to be captured, until ``removeBody(_:)``.
    static func addBody(_ task: UInt) {
        // A captured task that begins a capture of its own: its next hop is resolved again.
        CapturedJobRun.forgetKnownHop(of: task)
        bodies.add(task)
    }

    static func removeBody(_ task: UInt) {
        bodies.remove(task)
    }

    /// Whether the job or task at `address` is a running asynchronous capture's body.
    static func isBody(_ address: UInt) -> Bool {
        bodies.contains(address)
    }

    /// A job's address: for a task's job, the task's own.
    static func address(of job: UnownedJob) -> UInt {
        unsafeBitCast(job, to: UInt.self)
    }

    /// The current task's address, or 0 outside a task.
    static var currentTaskAddress: UInt {
        withUnsafeCurrentTask { task in task.map { unsafeBitCast($0, to: UInt.self) } ?? 0 }
    }
}

/// A capturing scheduler, weakly, as ``CapturedTaskIdentity`` enters it for each task it
/// captured: one per scheduler (``TestScheduler/captureMarker``), so that a task outliving its
/// test captures nothing and entering a task allocates nothing.
final class CaptureMarker: Sendable {
    private let reference: SchedulerReference
    private let open = Atomic<Bool>(true)
    /// The scheduler's address, compared only, never dereferenced.
    private let address: UInt

    init(_ scheduler: TestScheduler) {
        reference = SchedulerReference(scheduler)
        address = UInt(bitPattern: Unmanaged.passUnretained(scheduler).toOpaque())
    }

    /// Whether the scheduler is running work on this thread (an action or job of a drive, as
    /// `Scheduler.current`).
    var isRunningHere: Bool {
        UInt(bitPattern: CurrentScheduler.slot) == address
    }

    /// False once the scheduler's deinit began. Read under ``CapturedTaskIdentity``'s lock
    /// instead of ``scheduler``: a strong reference taken there could be the last one, and its
    /// release would run the scheduler's deinit, which takes that lock.
    var isOpen: Bool { open.load(ordering: .acquiring) }

    func close() { open.store(false, ordering: .releasing) }

    var scheduler: TestScheduler? {
        reference.scheduler.map { unsafeDowncast($0, to: TestScheduler.self) }
    }
}
