import Dispatch

/// A queue scheduler is an executor for Swift Concurrency.
///
/// - As a `SerialExecutor`, an actor can run on it:
///   `nonisolated var unownedExecutor: UnownedSerialExecutor { scheduler.asUnownedSerialExecutor() }`.
///   The actor is then isolated to ``QueueScheduler/queue``, which must be serial for that to mean
///   anything (it always is for a ``TargetQueueScheduler``; a concurrent queue you pass yourself
///   would run the actor's jobs concurrently).
/// - As a `TaskExecutor`, tasks can prefer it: `Task(executorPreference: scheduler) { ... }`,
///   `withTaskExecutorPreference(scheduler) { ... }`; their nonisolated code runs on its queue.
///   A task that prefers it retains it (the runtime does) until the task ends.
/// - Every job is one `async` onto ``QueueScheduler/queue``, FIFO with the scheduler's actions,
///   and runs as ``Scheduler/current``.
/// - ``isIsolatingCurrentContext()`` and ``checkIsolated()`` recognise the queue (a
///   `DispatchSpecificKey`), so `actor.assumeIsolated` / `MainActor`-style checks work inside a
///   plain `schedule { }` action on it, not only inside jobs.
///
/// **A concurrent queue is not serial isolation.** A `QueueScheduler` over a concurrent queue you
/// pass yourself still conforms to `SerialExecutor` (Swift has no conditional conformance on a
/// run-time property, and Dispatch cannot say whether a queue is serial), and every job it runs,
/// a preferring task's included, runs "isolated to" it. On such a queue that claim is false: two
/// jobs may run at once, and ``checkIsolated()`` / ``isIsolatingCurrentContext()`` answer only
/// "is this code on the queue". Use such a scheduler as a `TaskExecutor` for nonisolated code,
/// never as an actor's executor, and do not rely on `assumeIsolated` there. A
/// ``TargetQueueScheduler`` is always serial, so all of this holds for it exactly.
extension QueueScheduler: SerialExecutor, TaskExecutor {
    /// Runs `job` on ``queue`` as the current scheduler, isolated to this executor and with it as
    /// the task executor. Called by the runtime, from any thread.
    ///
    /// - Parameter job: the job to run.
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { [self] in
            performAsCurrentScheduler {
                job.runSynchronously(isolatedTo: asUnownedSerialExecutor(), taskExecutor: asUnownedTaskExecutor())
            }
        }
    }

    /// Whether the calling code runs on ``queue``: the runtime asks this first (Swift 6.2+), e.g.
    /// for `assumeIsolated`. Never nil: the answer is always known.
    ///
    /// - Returns: true when the calling code runs on ``queue``, false otherwise.
    @available(macOS 26.0, iOS 26.0, watchOS 26.0, tvOS 26.0, visionOS 26.0, *)
    public func isIsolatingCurrentContext() -> Bool? {
        QueueIdentity.isCurrent(queue)
    }

    /// Stops the program unless the calling code runs on ``queue``: the runtime's fallback for
    /// `assumeIsolated` outside one of this executor's jobs.
    public func checkIsolated() {
        if !QueueIdentity.isCurrent(queue) {
            badInput("\(self).checkIsolated(): not running on its queue '\(queue.label)'")
        }
    }
}
