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
/// Three rules, in this order:
/// 1. Work a capturing scheduler is running on this thread (its actions and jobs run as
///    `Scheduler.current`): that scheduler. So a task stays with the scheduler that ran it, even
///    after `withCapturedTasks` has returned.
/// 2. The innermost synchronous `withCapturedTasks` running on this thread, for code of the task
///    that called it (or, outside any task, code that runs in no task); not for the tasks a run
///    loop spun inside the body runs, which the body did not start.
/// 3. The task that enqueues: a task started inside `withCapturedTasks` (either form), or by
///    such a task, carries a ``CaptureMarker`` in a task-local value, and Swift copies task-local
///    values into every `Task {}` it starts. So the tasks a test starts, and the tasks they
///    start, are captured wherever they run.
///
/// The task that calls the asynchronous `withCapturedTasks` is never captured: it drives the
/// capture's world while the body (a captured task) runs (CapturedBodyDriver.swift).
///
/// The hooks ask for every job in the process, so the common answer ("nobody captures") is
/// quick: while no live scheduler has ever captured, one relaxed atomic load. Rules 1 and 2 are
/// thread-local reads; rule 3 a task-local read.
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

    /// Who is running here, as a synchronous capture records its caller: the task's address, or
    /// outside any task the run-loop depth (``RunLoopNesting``), shifted, with the low bit set.
    /// Outside any task (an XCTest method on the main thread), the depth is what tells the
    /// body's own code from the main-queue blocks a run loop spun inside it drains (those run
    /// the runtime's main-actor jobs, also outside any task).
    static var currentCaptureOwner: UInt {
        let task = currentTaskAddress
        return task != 0 ? task : UInt(bitPattern: RunLoopNesting.depth) << 1 | 1
    }

    /// The capture the current task belongs to (rule 3).
    @TaskLocal static var marker: CaptureMarker?

    /// Live schedulers that have captured at least once. While it is 0 the hooks forward every
    /// job at the cost of this load.
    static let capturingSchedulers = Atomic<Int>(0)

    /// The tasks driving asynchronous captures, as task addresses: never captured.
    private static let bodies = Lock([UInt]())
    private static let bodyCount = Atomic<Int>(0)

    /// The scheduler that takes a global job enqueued here and now, or nil.
    ///
    /// - Parameter job: the job, so that an asynchronous capture's driver is never captured.
    static func capturingScheduler(for job: UnownedJob) -> TestScheduler? {
        guard capturingSchedulers.load(ordering: .relaxed) > 0 else { return nil }
        guard let scheduler = capturingScheduler() else { return nil }
        if bodyCount.load(ordering: .acquiring) > 0, isBody(address(of: job)) { return nil }
        return scheduler
    }

    /// The scheduler whose stand-in answers a main-executor lookup made here and now, or nil.
    static func mainActorCapture() -> TestScheduler? {
        guard capturingSchedulers.load(ordering: .relaxed) > 0 else { return nil }
        return capturingScheduler()
    }

    /// Rules 1 to 3.
    private static func capturingScheduler() -> TestScheduler? {
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
        if let capturing = slot {
            if currentCaptureOwner == slotTask { return Unmanaged<TestScheduler>.fromOpaque(capturing).takeUnretainedValue() }
            // Code in no task inside a run loop the body spun: it sees the body's marker
            // through the thread, but the body did not start it.
            if currentTaskAddress == 0 { return nil }
        }
        // A weak load: a task that outlives its test's scheduler captures nothing.
        return marker?.scheduler
    }

    /// Marks `task` (an asynchronous capture's body) as never to be captured, until ``removeBody(_:)``.
    static func addBody(_ task: UInt) {
        bodies.withLock { $0.append(task) }
        bodyCount.add(1, ordering: .releasing)
    }

    static func removeBody(_ task: UInt) {
        bodies.withLock { list in
            if let index = list.lastIndex(of: task) { list.remove(at: index) }
        }
        bodyCount.subtract(1, ordering: .releasing)
    }

    /// Whether the job or task at `address` is a running asynchronous capture's body.
    static func isBody(_ address: UInt) -> Bool {
        guard bodyCount.load(ordering: .acquiring) > 0 else { return false }
        return bodies.withLock { $0.contains(address) }
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

/// What a task started inside `withCapturedTasks` carries (``CapturedTasks/marker``): the
/// scheduler that captures it, weakly, so that a task outliving its test captures nothing.
final class CaptureMarker: Sendable {
    private let reference: SchedulerReference

    init(_ scheduler: TestScheduler) {
        reference = SchedulerReference(scheduler)
    }

    var scheduler: TestScheduler? {
        reference.scheduler.map { unsafeDowncast($0, to: TestScheduler.self) }
    }
}
