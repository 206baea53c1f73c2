#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A test scheduler is a `TaskExecutor`: the jobs of a task that prefers it run only when the
/// test drives the scheduler, so async code is as deterministic as scheduled actions.
///
/// ```swift
/// let scheduler = TestScheduler()
/// let task = Task(executorPreference: scheduler) {
///     try await Task.sleep(for: .seconds(5), clock: scheduler.clock)
///     return "done"
/// }
/// scheduler.advance(by: 5)   // the task has finished when this returns
/// ```
///
/// - Each job is queued exactly like ``TestScheduler/schedule(_:)``: due at ``TestScheduler/now``,
///   FIFO with actions, counted by ``TestScheduler/pendingCount``, run by `step`/`advance` on the
///   driving thread as ``Scheduler/current``.
/// - A continuation resumed while the scheduler runs (a sleep on ``TestScheduler/clock`` or
///   ``Scheduler/sleep(for:)`` waking up, say) queues the task's next job at ``TestScheduler/now``,
///   so `advance(by:)` runs it before it returns.
/// - Code isolated to an actor (`@MainActor` included) runs on that actor's executor, not here;
///   create such tasks from a nonisolated context (a Swift Testing `@Test` is one).
///
/// Lifetime: a queued job does not retain the scheduler, and a deinitialised scheduler releases
/// its queue without running it. But Swift offers no way to destroy a job without running it,
/// and the runtime makes a task retain its preferred executor: a task whose job never runs stays
/// in memory, and if it prefers this scheduler, so does the scheduler. Drive a test's tasks to
/// their end (or cancel them, then `advance`).
extension TestScheduler: TaskExecutor {
    /// Queues `job` like ``schedule(_:)``. Called by the runtime, from any thread.
    ///
    /// - Parameter job: the job to run when the scheduler is driven.
    public func enqueue(_ job: consuming ExecutorJob) {
        enqueueOnScheduler(UnownedJob(job))
    }

    /// Queues a job captured from the global executor (GlobalEnqueueHook.swift), as a job of a
    /// task that prefers this scheduler. The caller holds the scheduler strongly for the call:
    /// the report of a job from outside touches it after the job is queued.
    ///
    /// - Parameter fromOutside: whether the job arrived from outside virtual time (a Dispatch
    ///   callback): reported unless something waits for it (OutsideArrivals.swift).
    func enqueueCaptured(_ job: UnownedJob, fromOutside: Bool) {
        enqueueOnScheduler(job, isKnown: true, arrivesFromOutside: fromOutside)
    }

    /// The one path for the jobs of a task that prefers this scheduler and for those
    /// ``withCapturedTasks(_:)`` captures: due at ``now``, FIFO with actions, each run with this
    /// scheduler as its task executor. A hop of the running task goes on at once instead of
    /// queuing behind everything (CapturedJobRun.swift); a `Task.yield()`'s job waits for the
    /// current moment to run out (YieldedJob.swift).
    ///
    /// - Parameter isKnown: the job is a captured one, resolved to this scheduler: its task's
    ///   hops in the run are parked without resolving them again (CapturedJobRun.swift).
    ///   - arrivesFromOutside: the job arrived from outside virtual time: reported if its task
    ///     waited through a drive (OutsideArrivals.swift), by the epoch read as it is queued.
    private func enqueueOnScheduler(_ job: UnownedJob, isKnown: Bool = false, arrivesFromOutside: Bool = false) {
        // The job an adopted task's wake-up waits for (TestScheduler+AdoptedTasks.swift), noted
        // once it is queued: noted before, the wake-up let its drive go on, and the drive could
        // find the queue still without it and return, leaving the task to the next drive. Known
        // before: once a job is queued, a drive on another thread can run it, its task can end
        // and release the scheduler, and the test can drop it, so nothing here touches `self`
        // after that without holding it.
        let rejoin = awaitsRejoin(job) ? Unmanaged.passRetained(self) : nil
        defer {
            #if DEBUG
            AfterQueuingForTests.run()
            #endif
            rejoin?.takeRetainedValue().noteRejoin(of: job)
        }
        let inDrive = CurrentScheduler.slot == Unmanaged.passUnretained(self).toOpaque()
        if inDrive && CapturedJobRun.parkHop(job) { return }
        // Unowned: a pending job must not keep the scheduler alive; it only runs while it is.
        let executor = asUnownedTaskExecutor()
        let arrivals = arrivals
        arrivals.noteQueued(job)
        arrivals.noteStarted(job, inDrive: inDrive, by: self)
        let isYield = YieldedJob.isYield(job)
        // A captured task's run records the drive epoch it ended in: from there on it waits, and
        // work arriving for it from outside is judged by that (OutsideArrivals.swift). Unretained:
        // the core outlives every run of its queue.
        let waits = hasCapturedTasks && CapturedTaskIdentity.isTask(job) ? Unmanaged.passUnretained(core) : nil
        let run: @Sendable () -> Void = {
            arrivals.run(job) {
                CapturedJobRun.run(job, isYield: isYield, isKnown: isKnown) { job in job.runSynchronously(on: executor) }
            }
            waits?._withUnsafeGuaranteedRef { $0.taskRan(at: CapturedTasks.address(of: job)) }
        }
        if isYield {
            core.holdYield(run)
            // A yield is not resumed from outside; were it, it waited for nothing the test did.
        } else if arrivesFromOutside {
            // Judged under the queue's lock, as the job is queued (OutsideArrivals.swift).
            let waited = core.enqueueArrival(action: run, task: CapturedTasks.address(of: job))
            // After the queuing, on `self`: safe only because the one caller that arrives from
            // outside, the global-enqueue hook, holds the scheduler strongly for the call.
            noteArrivalFromOutside(.global, waitedThroughADrive: waited)
        } else {
            core.enqueueWithoutDisposable(action: run) { now in now }
        }
    }
}

#if DEBUG
/// For tests, by thread: code the enqueuing thread runs once a job is queued, before
/// ``TestScheduler/enqueue(_:)`` returns: the moment a drive on another thread can run the job,
/// end its task and free the scheduler
/// (`aTaskResumedElsewhereMayFreeTheSchedulerBeforeItsResumeReturns`).
enum AfterQueuingForTests {
    private final class Body: Sendable {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let status = pthread_key_create(&key, nil)
        precondition(status == 0, "pthread_key_create failed: \(status)")
        return key
    }()

    /// Sets (or, with nil, clears) the code for this thread.
    static func setOnThisThread(_ body: (@Sendable () -> Void)?) {
        if let old = pthread_getspecific(key) { Unmanaged<Body>.fromOpaque(old).release() }
        pthread_setspecific(key, body.map { Unmanaged.passRetained(Body($0)).toOpaque() })
    }

    static func run() {
        guard let body = pthread_getspecific(key) else { return }
        Unmanaged<Body>.fromOpaque(body).takeUnretainedValue().run()
    }
}
#endif
