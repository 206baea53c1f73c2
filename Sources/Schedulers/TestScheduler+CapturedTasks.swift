import Foundation

extension TestScheduler {
    /// Runs `body` on the calling thread, sending the tasks it starts into this scheduler's
    /// virtual time.
    ///
    /// While `body` runs, every job bound for the global concurrent executor that is enqueued
    /// from this thread, or from work this scheduler is running, goes to this scheduler instead:
    /// a plain `Task {}`, `Task.detached`, and the unstructured tasks that library operators
    /// start inside (swift-async-algorithms' `debounce`, `merge`, `zip`, `combineLatest`, …),
    /// which do not inherit a `Task(executorPreference:)`.
    ///
    /// ```swift
    /// let scheduler = TestScheduler()
    /// scheduler.withCapturedTasks {
    ///     let task = Task {
    ///         try await Task.sleep(for: .seconds(5), clock: scheduler.clock)
    ///         return "done"
    ///     }
    ///     scheduler.advance(by: 5)   // the task has finished when this returns
    /// }
    /// ```
    ///
    /// - **Captured jobs** behave like those of a task that prefers the scheduler
    ///   (TestScheduler+Executor.swift): each is queued like ``schedule(_:)``, due at ``now``,
    ///   FIFO with actions and counted by ``pendingCount``; it runs only when the scheduler is
    ///   driven, on the driving thread, as ``Scheduler/current``. A continuation resumed while
    ///   the scheduler runs (a sleep on ``clock`` waking up) queues the task's next job at
    ///   ``now``, so `advance(by:)` runs it before it returns.
    /// - **Which jobs.** A global job enqueued while one of this scheduler's actions or jobs runs
    ///   goes to this scheduler. Else, one enqueued from the thread running `body` goes to the
    ///   innermost `withCapturedTasks` on that thread: captures nest, the innermost wins. Jobs
    ///   enqueued from any other thread (tests running in parallel, unrelated work) are
    ///   untouched, and so are jobs bound for an actor (`@MainActor` code runs on the main
    ///   actor, not here) or for a task executor a task prefers.
    /// - **When `body` returns**, captured work still pending stays queued on this scheduler:
    ///   it runs if the scheduler is driven later, and the global jobs it enqueues while it runs
    ///   are still captured (by the first rule), so a task started inside `body` stays in
    ///   virtual time to its end. Nothing else is captured from the calling thread any more. If
    ///   the scheduler is deinitialised first, pending jobs are released without running, and
    ///   their tasks never finish: Swift has no way to destroy a job without running it. Drive a
    ///   test's tasks to their end (or cancel them, then `advance`) before it returns.
    /// - **Other hooks.** The runtime's hook is one variable for the whole process, which other
    ///   libraries set too (swift-concurrency-extras' `withMainSerialExecutor`). Ours is
    ///   installed only while a capture's body runs or a scheduler that has captured is being
    ///   driven, and each time it is taken out again, what was there put back: once every capture
    ///   has ended, the variable is as it was before the first began. A hook installed before a
    ///   capture began (an enclosing `withMainSerialExecutor`) gets every job the capture does
    ///   not capture. One installed inside the body takes every global job while its scope runs
    ///   (the innermost wins), a capture begun inside that scope captures again until it ends,
    ///   and when the body returns the variable holds what it held when the body began, even if
    ///   the other library left its own hook behind (swift-concurrency-extras does: it took ours
    ///   for its own). Between the end of such a scope and the end of the body, the body's new
    ///   tasks go to that left-behind hook, not to this scheduler. Scopes of different libraries
    ///   must nest, as they do when the tests using them run one at a time.
    ///
    /// How: through the runtime's `swift_task_enqueueGlobal_hook`, an exported variable looked
    /// up with `dlsym` (it costs a few nanoseconds a job, while installed, for jobs it does not
    /// capture). Swift 6.2 and later let an executable choose its global
    /// executor with an `ExecutorFactory`, but that choice is made at compile time
    /// (`-executor-factory`) for the whole executable: a library cannot make it, and it
    /// cannot be scoped to one test or one thread. The hook can.
    ///
    /// - Parameter body: The code whose tasks should run in virtual time. It runs synchronously
    ///   on the calling thread; drive the scheduler inside it.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws.
    /// - Precondition: the Swift runtime exports `swift_task_enqueueGlobal_hook` (every Swift 5.x
    ///   and 6.x runtime on Linux and Apple platforms does); without it the program stops with a
    ///   message that says so and names `Task(executorPreference:)` as the alternative.
    public func withCapturedTasks<R>(_ body: () throws -> R) rethrows -> R {
        guard let tenure = GlobalEnqueueHook.acquire() else {
            badInput(
                "TestScheduler.withCapturedTasks(_:): this Swift runtime does not export "
                    + "swift_task_enqueueGlobal_hook, so global jobs cannot be captured; start the "
                    + "tasks with Task(executorPreference: scheduler) instead")
        }
        defer { GlobalEnqueueHook.release(tenure) }
        CapturedTasks.register(self)
        driver.holdsEnqueueHook.store(true, ordering: .relaxed)
        let previous = CapturedTasks.slot
        CapturedTasks.slot = Unmanaged.passUnretained(self).toOpaque()
        defer { CapturedTasks.slot = previous }
        return try body()
    }
}
