import Foundation
import Schedulers
import Testing
import TestSupport

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// `TestScheduler.withCapturedTasks(_:)`: unstructured tasks started in its body (and by the
/// work the scheduler runs) live in virtual time, and nothing else does.
///
/// Serialized: one test installs a hook of its own over the runtime's global-enqueue hook.
@Suite(.ownThread, .timeLimit(.minutes(5)), .serialized) struct CapturedTasksTests {
    private static func date(_ seconds: TimeInterval) -> Date {
        Date(timeIntervalSinceReferenceDate: seconds)
    }

    /// A plain `Task {}` sleeping on the clock, a thousand times: each wake-up happens inside the
    /// `advance` that reaches it, never before, never after.
    @Test func aPlainTaskSleepingOnTheClockIsExact() {
        var failures = 0
        for _ in 0..<1_000 {
            let scheduler = TestScheduler()
            let wakes = Locked<[Date]>([])
            scheduler.withCapturedTasks {
                Task {
                    for _ in 0..<3 {
                        try await Task.sleep(for: .seconds(2), clock: scheduler.clock)
                        wakes.withLock { $0.append(scheduler.now) }
                    }
                }
                // The task's first job waits on the scheduler, like a scheduled action.
                if scheduler.pendingCount != 1 { failures += 1 }
                scheduler.advance(by: 5)
                if wakes.value != [2, 4].map(Self.date) { failures += 1 }
                scheduler.advance(by: 1)
                if wakes.value != [2, 4, 6].map(Self.date) || scheduler.pendingCount != 0 { failures += 1 }
            }
        }
        #expect(failures == 0)
    }

    /// `Task.detached` and `Scheduler.sleep(for:)`, a thousand times.
    @Test func aDetachedTaskSleepingOnTheSchedulerIsExact() {
        var failures = 0
        for _ in 0..<1_000 {
            let scheduler = TestScheduler()
            let result = Locked<Date?>(nil)
            scheduler.withCapturedTasks {
                Task.detached {
                    try await scheduler.sleep(for: .milliseconds(1_500))
                    // A task started by captured work is captured too.
                    let inner = Task {
                        try await scheduler.sleep(for: .milliseconds(500))
                        return scheduler.now
                    }
                    let date = try await inner.value
                    result.withLock { $0 = date }
                }
                scheduler.advance(by: 1.999)
                if result.value != nil { failures += 1 }
                scheduler.advance(by: 0.001)
                if result.value != Self.date(2) || scheduler.pendingCount != 0 { failures += 1 }
            }
        }
        #expect(failures == 0)
    }

    /// A job enqueued from another thread while a capture is running runs on the cooperative
    /// pool as usual: the scheduler never sees it.
    @Test func jobsFromAnotherThreadAreUntouched() {
        let scheduler = TestScheduler()
        let ran = DispatchSemaphore(value: 0)
        let ranOnPool = scheduler.withCapturedTasks { () -> Bool in
            Thread { Task { ran.signal() } }.start()
            let signalled = ran.wait(timeout: .now() + 60) == .success
            return signalled && scheduler.pendingCount == 0
        }
        #expect(ranOnPool)
    }

    /// Jobs bound for the task executor a task prefers are not global jobs: the capture leaves
    /// them where they were going. (Main-actor work, by contrast, is captured:
    /// MainActorCaptureTests.)
    @Test func preferredExecutorJobsAreUntouched() {
        let scheduler = TestScheduler()
        let queue = TargetQueueScheduler(name: "captured-tasks-tests")
        let ranOnQueue = DispatchSemaphore(value: 0)
        let pending = scheduler.withCapturedTasks { () -> Int in
            Task(executorPreference: queue) {
                if Scheduler.current === queue { ranOnQueue.signal() }
            }
            return scheduler.pendingCount
        }
        #expect(pending == 0)
        #expect(ranOnQueue.wait(timeout: .now() + 60) == .success)
    }

    /// The innermost capture wins; work a scheduler runs stays with that scheduler.
    @Test func capturesNest() {
        let outer = TestScheduler()
        let inner = TestScheduler()
        let log = Locked<[String]>([])
        outer.withCapturedTasks {
            Task { log.withLock { $0.append("outer 1") } }
            inner.withCapturedTasks {
                Task { log.withLock { $0.append("inner") } }
                #expect(inner.pendingCount == 1)
                #expect(outer.pendingCount == 1)
                // The outer scheduler, driven inside the inner capture, runs its task, whose
                // own new task goes to the outer scheduler, not to the innermost capture.
                outer.schedule {
                    Task { log.withLock { $0.append("outer 2") } }
                }
                outer.advance(by: 0)
                #expect(outer.pendingCount == 0)
                #expect(inner.pendingCount == 1)
                inner.advance(by: 0)
            }
            Task { log.withLock { $0.append("outer 3") } }
            #expect(outer.pendingCount == 1)
            outer.advance(by: 0)
        }
        #expect(log.value == ["outer 1", "outer 2", "inner", "outer 3"])
    }

    /// Captured work still pending when the body returns stays on the scheduler; what it
    /// starts later is captured too; the calling thread's new tasks are not.
    @Test func pendingWorkStaysOnTheSchedulerAfterTheBodyReturns() {
        let scheduler = TestScheduler()
        let log = Locked<[Date]>([])
        let task = scheduler.withCapturedTasks {
            Task {
                try await scheduler.sleep(for: .seconds(1))
                log.withLock { $0.append(scheduler.now) }
                await Task {
                    try? await scheduler.sleep(for: .seconds(1))
                    log.withLock { $0.append(scheduler.now) }
                }.value
            }
        }
        #expect(scheduler.pendingCount == 1)
        scheduler.advance(by: 1)
        #expect(log.value == [Self.date(1)])
        #expect(scheduler.pendingCount == 1)  // the inner task's wake-up
        scheduler.advance(by: 1)
        #expect(log.value == [Self.date(1), Self.date(2)])
        #expect(scheduler.pendingCount == 0)
        _ = task

        // After the body, a task started on this thread is not captured.
        let ran = DispatchSemaphore(value: 0)
        Task { ran.signal() }
        #expect(scheduler.pendingCount == 0)
        #expect(ran.wait(timeout: .now() + 60) == .success)
    }

    /// A hook installed before ours still gets every job we do not capture, and none we do.
    ///
    /// In a process of its own: it writes the process-wide hook variable itself, as another
    /// library would, and puts back what it found when it ends. In the test process that can take
    /// our hook from under a capture of a suite running at the same time, whose captured tasks
    /// would then run on the real pool.
    @Test func aPreviouslyInstalledHookKeepsWorking() async {
        await #expect(processExitsWith: .success) {
            // Off the cooperative pool: the check blocks its thread while a task runs elsewhere.
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                Thread {
                    CapturedTasksTests.checkAPreviouslyInstalledHook()
                    done.resume()
                }.start()
            }
        }
    }

    /// The body of ``aPreviouslyInstalledHookKeepsWorking()``; stops the process on a failure.
    private static func checkAPreviouslyInstalledHook() {
        guard let variable = ForeignHook.variable else { preconditionFailure("no swift_task_enqueueGlobal_hook") }
        let saved = variable.pointee
        ForeignHook.chained.withLock { $0 = unsafeBitCast(saved, to: UInt.self) }
        ForeignHook.seen.withLock { $0 = [] }
        variable.pointee = ForeignHook.hook
        defer { variable.pointee = saved }

        let scheduler = TestScheduler()
        let captured = Locked<Bool?>(nil)
        let foreign = Locked<Bool?>(nil)
        let ran = DispatchSemaphore(value: 0)
        scheduler.withCapturedTasks {
            Task { captured.withLock { $0 = ForeignHook.sawCurrentTask() } }
            scheduler.advance(by: 0)
            Thread {
                Task {
                    foreign.withLock { $0 = ForeignHook.sawCurrentTask() }
                    ran.signal()
                }
            }.start()
            _ = ran.wait(timeout: .now() + 60)
        }
        precondition(captured.value == false, "the foreign hook saw a job we captured: \(String(describing: captured.value))")
        precondition(foreign.value == true, "the foreign hook missed a job we did not capture: \(String(describing: foreign.value))")
    }
}

/// Another library's global-enqueue hook, for the chaining test: it records the jobs that pass
/// through it, then forwards to whatever it replaced.
private enum ForeignHook {
    typealias Original = @convention(thin) (UnownedJob) -> Void
    typealias Hook = @convention(thin) (UnownedJob, Original) -> Void

    nonisolated(unsafe) static let variable: UnsafeMutablePointer<Hook?>? = dlsym(
        dlopen(nil, RTLD_NOW), "swift_task_enqueueGlobal_hook"
    )?.assumingMemoryBound(to: Hook?.self)

    /// The hook this one replaced (bit pattern, 0 for none).
    static let chained = Locked<UInt>(0)
    /// The jobs that came through, by address. A task's first job is the task itself.
    static let seen = Locked<Set<UInt>>([])

    static let hook: Hook = { job, original in
        let address = unsafeBitCast(job, to: UInt.self)
        ForeignHook.seen.withLock { _ = $0.insert(address) }
        let next = ForeignHook.chained.value
        if next != 0 {
            unsafeBitCast(next, to: Hook.self)(job, original)
        } else {
            original(job)
        }
    }

    /// Whether the running task's first job came through this hook.
    static func sawCurrentTask() -> Bool {
        let address = withUnsafeCurrentTask { unsafeBitCast($0!, to: UInt.self) }
        return seen.value.contains(address)
    }
}
