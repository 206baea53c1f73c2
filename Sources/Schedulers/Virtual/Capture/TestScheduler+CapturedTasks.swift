import Foundation

extension TestScheduler {
    /// Runs `body` on the calling thread, sending the tasks it starts into this scheduler's
    /// virtual time: global tasks and, on the main actor, main-actor tasks too.
    ///
    /// ```swift
    /// @MainActor @Test func debounces() {
    ///     let scheduler = TestScheduler()
    ///     let model = SearchModel(clock: scheduler.clock)   // a @MainActor view model
    ///     scheduler.withCapturedTasks {
    ///         model.queryChanged("s")        // starts a Task {} on the main actor
    ///         scheduler.advance(by: 0.299)
    ///         #expect(model.results == [])
    ///         scheduler.advance(by: 0.001)   // the task has finished when this returns
    ///         #expect(model.results == ["s"])
    ///     }
    /// }
    /// ```
    ///
    /// - **Which jobs.** While `body` runs, every job bound for the global concurrent executor
    ///   that is enqueued from this thread, or from work this scheduler is running, goes to this
    ///   scheduler instead: a plain `Task {}`, `Task.detached`, and the unstructured tasks that
    ///   library operators start inside (swift-async-algorithms' `debounce`, `merge`, `zip`,
    ///   `combineLatest`, …), which do not inherit a `Task(executorPreference:)`. So does the
    ///   main-actor work of those tasks and of the tasks `body` starts on the main actor (a
    ///   `@MainActor` view model's `Task {}`): when the runtime looks up the main actor's
    ///   executor for them, it gets this scheduler's stand-in for it. A task started by a
    ///   captured task is captured too, wherever it runs (Swift copies the task-local value
    ///   that marks it). Captures nest: the innermost wins. Jobs enqueued from any other thread
    ///   or task (tests running in parallel, the test runner, unrelated work) are untouched,
    ///   and so are jobs bound for other actors (a default actor runs captured work inline when
    ///   it is free) and for a task executor a task prefers.
    /// - **Captured jobs** behave like those of a task that prefers the scheduler
    ///   (TestScheduler+Executor.swift): each is queued like ``schedule(_:)``, due at ``now``,
    ///   FIFO with actions and counted by ``pendingCount``; it runs only when the scheduler is
    ///   driven, on the driving thread, as ``Scheduler/current``. A continuation resumed while
    ///   the scheduler runs (a sleep on ``clock`` waking up) queues the task's next job at
    ///   ``now``, so `advance(by:)` runs it before it returns. A main-actor job runs at its
    ///   virtual time like any other, on the driving thread, which must hold the main actor:
    ///   call this and `advance` from the main actor (a `@MainActor` test; in XCTest, inside
    ///   `MainActor.assumeIsolated`). Driven from another thread, such a job goes to the real
    ///   main actor instead, and the scheduler reports a warning naming the fix, once; the
    ///   asynchronous ``Clock/advance(by:isolation:)`` works from anywhere.
    ///   A captured task that sleeps on a real clock (`Task.sleep(for:)`, `ContinuousClock`,
    ///   `SuspendingClock`) sleeps in virtual time on Linux with Swift 6.3 and later: it wakes
    ///   the duration it asked for after ``now``, as if it had slept on ``clock``, exactly, for
    ///   every duration: the real clocks read virtual time while the world's work runs
    ///   (WorldClock.swift). Elsewhere such a sleep lasts its real duration.
    /// - **When `body` returns**, captured work still pending stays queued on this scheduler:
    ///   it runs if the scheduler is driven later, and it is still captured, so a task started
    ///   inside `body` stays in virtual time to its end, whichever thread resumes it: a
    ///   continuation resumed from a Dispatch callback or a completion handler queues the
    ///   task's next job here at ``now``, FIFO (the task is known by its identity, and the hook
    ///   stays installed while such a task lives: CapturedTaskIdentity.swift,
    ///   CaptureLifetime.swift). If a drive ran, or virtual time moved, while the task waited
    ///   for that work, whether the test saw it depends on timing, and the scheduler reports it
    ///   once; a test that lets it arrive before driving again is never reported
    ///   (OutsideArrivals.swift). If the scheduler is
    ///   deinitialised first, pending jobs are released without running, and their tasks never
    ///   finish: Swift has no way to destroy a job without running it. A captured main-actor
    ///   task may even outlive its scheduler while it waits on something real (a real-clock
    ///   sleep, a Dispatch callback): when it resumes, its job is released without running, and
    ///   nothing touches the released scheduler (MainActorStandIn.swift, "Lifetime"). Drive a
    ///   test's tasks to their end (or cancel them, then `advance`) before it returns.
    /// - **Other hooks.** Each runtime hook is one variable for the whole process, which other
    ///   libraries set too (swift-concurrency-extras' `withMainSerialExecutor`). Ours are
    ///   installed only while a capture's body runs or a scheduler that has captured is being
    ///   driven, and each time they are taken out again, what was there is put back: once every
    ///   capture has ended, the variables are as they were before the first began. A hook
    ///   installed before a capture began (an enclosing `withMainSerialExecutor`) gets every job
    ///   the capture does not capture. One installed inside the body takes every global job
    ///   while its scope runs (the innermost wins), a capture begun inside that scope captures
    ///   again until it ends, and when the body returns the variable holds what it held when the
    ///   body began, even if the other library left its own hook behind (swift-concurrency-extras
    ///   does: it took ours for its own). Between the end of such a scope and the end of the
    ///   body, the body's new global tasks go to that left-behind hook, not to this scheduler.
    ///   Scopes of different libraries must nest, as they do when the tests using them run one
    ///   at a time.
    ///
    /// How: through two of the runtime's exported hooks, which `SchedulersTestSupport` looks up
    /// with `dlsym` and lends this module where a binary links it (an app's binary names none):
    /// `swift_task_enqueueGlobal_hook` for global jobs, and `swift_task_getMainExecutor_hook`
    /// for the main actor (why that one is MainExecutorHook.swift's doc comment). While
    /// installed, they cost a few nanoseconds a job or lookup for work they do not capture.
    /// Swift 6.2 and later let an executable choose its executors with an `ExecutorFactory`,
    /// but that choice is made at compile time (`-executor-factory`) for the whole executable:
    /// a library cannot make it, and it cannot be scoped to one test. The hooks can.
    ///
    /// - Parameter body: The code whose tasks should run in virtual time. It runs synchronously
    ///   on the calling thread; drive the scheduler inside it.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws.
    /// - Precondition: the binary links the `SchedulersTestSupport` product (a test target that
    ///   depends on it); without it the program stops with a message that names the product.
    ///   The Swift runtime exports `swift_task_enqueueGlobal_hook` (every Swift 5.x
    ///   and 6.x runtime on Linux and Apple platforms does); without it the program stops with a
    ///   message that says so and names `Task(executorPreference:)` as the alternative. A
    ///   runtime without `swift_task_getMainExecutor_hook` (before the Swift 6.1 runtime) captures global
    ///   jobs only, and says so once when called on the main actor.
    public func withCapturedTasks<R>(_ body: () throws -> R) rethrows -> R {
        let tenures = prepareCapture(method: "withCapturedTasks(_:)")
        defer {
            tenures.release()
            emitPendingReport()
        }
        return try RunLoopNesting.counting {
            let previous = (CapturedTasks.slot, CapturedTasks.slotTask, CapturedTasks.slotDepth)
            CapturedTasks.slot = Unmanaged.passUnretained(self).toOpaque()
            CapturedTasks.slotTask = CapturedTasks.currentCaptureOwner
            CapturedTasks.slotDepth = RunLoopNesting.depth
            defer { (CapturedTasks.slot, CapturedTasks.slotTask, CapturedTasks.slotDepth) = previous }
            return try CapturedTasks.$lifetime.withValue(captureLifetimes.begin()) { try body() }
        }
    }

    /// As ``withCapturedTasks(_:)``, for a body that awaits: the habit of swift-clocks'
    /// `TestClock` users, on any actor.
    ///
    /// ```swift
    /// @MainActor @Test func debouncesAsync() async {
    ///     let scheduler = TestScheduler()
    ///     let model = SearchModel(clock: scheduler.clock)
    ///     await scheduler.withCapturedTasks {
    ///         model.queryChanged("s")
    ///         await scheduler.clock.advance(by: .milliseconds(299))
    ///         #expect(model.results == [])
    ///         await scheduler.clock.advance(by: .milliseconds(1))
    ///         #expect(model.results == ["s"])
    ///     }
    /// }
    /// ```
    ///
    /// The tasks `body` starts, and theirs, are captured as with the synchronous form (a
    /// task-local value marks them, so it does not matter which thread `body` resumes on).
    ///
    /// **One world.** `body` itself runs as a captured task (a task that prefers this
    /// scheduler, on the caller's actor, cancelled with the caller), FIFO with the tasks it
    /// starts, while the calling task drives: whenever `body` waits (a task's `value`, `async let`, a task group, a stream,
    /// `Task.yield()`, an actor call, a continuation), what is due at the current virtual time
    /// runs, in the scheduler's order, and virtual time does not move. So the same test gives the
    /// same interleaving every run. If `body` waits for what only a later virtual time can bring,
    /// the scheduler warns once after ``waitWarningDelay`` of real time, naming the earliest
    /// pending due time; the wait goes on (CapturedBodyDriver.swift). Drive the scheduler
    /// inside with ``Clock/advance(by:isolation:)``, ``Clock/advance(to:isolation:)`` or
    /// ``Clock/run(isolation:)``, which run captured main-actor jobs on the main actor wherever
    /// they are called from. (A body with no `await` in it calls the synchronous
    /// ``withCapturedTasks(_:)`` instead, inside an async function too: Swift 6.3 prefers it for
    /// a synchronous closure, and an `await` in front only earns a compiler warning. Both
    /// capture what the body starts.)
    ///
    /// - Parameters:
    ///   - isolation: The actor `body` runs on: the caller's.
    ///   - body: The code whose tasks should run in virtual time.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws.
    public func withCapturedTasks<R>(
        isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> R
    ) async rethrows -> R {
        try await withCapturedTasks(advancing: .manually, isolation: isolation, body)
    }

    /// The asynchronous capture behind both public forms.
    func capture<R>(
        advancing: Advancing, method: String, isolation: isolated (any Actor)?, _ body: () async throws -> R
    ) async rethrows -> R {
        let tenures = prepareCapture(method: method)
        defer {
            tenures.release()
            emitPendingReport()
        }
        // The calling task drives the capture's world (CapturedBodyDriver.swift): never captured.
        let driver = CapturedTasks.currentTaskAddress
        CapturedTasks.addBody(driver)
        defer { CapturedTasks.removeBody(driver) }
        return try await withoutActuallyEscaping(body) { body in
            try await runCapturedBody(CapturedBodyClosure(run: body), advancing: advancing, isolation: isolation).get()
        }
    }

    /// Installs the hooks (until the returned tenures are released) and counts this scheduler in.
    private func prepareCapture(method: String) -> CaptureHooks.Tenures {
        guard let parts = TestSupportLink.parts else {
            badInput(
                "TestScheduler.\(method) needs the SchedulersTestSupport product, which this binary does "
                    + "not link: add it to the test target's dependencies (.product(name: "
                    + "\"SchedulersTestSupport\", package: \"Schedulers\")) and import it")
        }
        guard let tenures = CaptureHooks.acquire() else {
            badInput(
                "TestScheduler.\(method): this Swift runtime does not export "
                    + "\(parts.enqueueGlobalHook.name), so global jobs cannot be captured; start the "
                    + "tasks with Task(executorPreference: scheduler) instead")
        }
        if tenures.main == nil, MainActorIsolation.isHeld, core.warnOnce(.synchronousMainActorUnavailable) {
            Warning.emit("""
                TestScheduler.\(method) cannot capture main-actor tasks on this Swift runtime, so \
                their jobs run outside virtual time; capture global tasks only, or test on a Swift 6.1 \
                or later runtime (macOS 15.4, iOS 18.4).
                This runtime does not export \(parts.getMainExecutorHook.name): it arrived with the \
                Swift 6.1 runtime. (Once per scheduler.)
                """, about: self)
        }
        startCapturing()
        driver.holdsCaptureHooks.store(true, ordering: .relaxed)
        return tenures
    }
}

extension TestScheduler {
    /// The scheduler whose virtual world the running code belongs to: the innermost capture
    /// whose body this is, the scheduler running this job, or the one that captured the running
    /// task; nil outside every world. `SchedulersTestSupport` publishes it as `capturing`.
    package static var worldOfRunningCode: TestScheduler? {
        CapturedTasks.world()
    }
}
