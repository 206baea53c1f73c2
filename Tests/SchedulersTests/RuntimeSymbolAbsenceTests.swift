#if DEBUG  // symbols can be hidden only in DEBUG builds (RuntimeSymbol.hideVariable)
import Dispatch
@_spi(SchedulersInternal) import Disposables
import Foundation
@testable import Schedulers
import Testing
import TestSupport

/// Every symbol the package looks up at run time goes through `RuntimeSymbol.address(of:)`;
/// each is made absent here on purpose (listed in `SCHEDULERS_HIDE_RUNTIME_SYMBOLS`, set inside a
/// child process before the first lookup), to check that its absence gives a clear message or
/// the documented fallback, never a crash. Each lookup is done once per process, which is why
/// every case runs in a child process (a Swift Testing exit test).
@Suite(.ownThread, .timeLimit(.minutes(5))) struct RuntimeSymbolAbsenceTests {
    static let enqueueHook = "swift_task_enqueueGlobal_hook"

    /// The symbols this file hides are really there in the test process, or these tests would
    /// prove nothing.
    @Test func theSymbolsAreThereUnlessHidden() {
        #expect(RuntimeSymbol.address(of: Self.enqueueHook) != nil)
        #expect(RuntimeSymbol.address(of: "schedulers_no_such_symbol") == nil)
        #expect(!RuntimeSymbol.isHidden(Self.enqueueHook))
    }

    @Test func aHiddenNameIsAbsentAndTheOthersAreNot() async {
        await #expect(processExitsWith: .success) {
            hide("schedulers_other, \(RuntimeSymbolAbsenceTests.enqueueHook)")
            precondition(RuntimeSymbol.address(of: RuntimeSymbolAbsenceTests.enqueueHook) == nil, "still found")
            precondition(RuntimeSymbol.address(of: "swift_retain") != nil, "an unlisted symbol went missing")
        }
    }

    /// `swift_task_enqueueGlobal_hook` absent: `withCapturedTasks` stops with a message that
    /// names the symbol and the alternative (its documented precondition).
    @Test func withCapturedTasksWithoutTheEnqueueHookStopsNamingIt() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            hide(RuntimeSymbolAbsenceTests.enqueueHook)
            TestScheduler().withCapturedTasks {}
        }
        expectMessage(result, names: ["withCapturedTasks", Self.enqueueHook, "Task(executorPreference:"])
    }

    /// A binary without the test support (an app's): `withCapturedTasks` stops with a message
    /// that names the product to add (its documented precondition).
    @Test func withoutTheTestSupportWithCapturedTasksStopsNamingTheProduct() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            hide(TestSupportLink.registrationName)
            precondition(TestSupportLink.parts == nil, "the test support was still found")
            TestScheduler().withCapturedTasks {}
        }
        expectMessage(result, names: ["withCapturedTasks", "SchedulersTestSupport", ".product(name:"])
    }

    /// Without the test support, a report, even one given inside a Swift Testing test, is a line
    /// on standard error: no framework is lent to record it.
    @Test func withoutTheTestSupportAReportIsALineOnStandardError() async throws {
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            hide(TestSupportLink.registrationName)
            let destination = TestIssueReporter.report(
                "Schedulers warning: nobody lends a framework.", kind: .failure, fileID: #fileID,
                filePath: #filePath, line: #line)
            precondition(destination == .standardError, "went to \(destination)")
        }
        let stderr = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
        #expect(stderr.contains("Schedulers warning: nobody lends a framework.\n"))
    }

    /// Without the test support, a task that sleeps on a TestScheduler's clock does not join
    /// its world (that needs the hooks), but a drive past its deadline still wakes it, as any
    /// task is woken: on the cooperative pool, not inside the drive.
    @Test(.timeLimit(.minutes(5)))
    func withoutTheTestSupportATaskSleepingOnTheClockIsStillWoken() async {
        await #expect(processExitsWith: .success) {
            hide(TestSupportLink.registrationName)
            precondition(!GlobalEnqueueHook.isAvailable, "the hook is there without the test support")
            let scheduler = TestScheduler()
            let task = Task.detached {
                try? await scheduler.clock.sleep(for: .seconds(5))
                return scheduler.now
            }
            driveInTheBackground(scheduler)
            let wokeAt = await task.value
            precondition(wokeAt >= Date(timeIntervalSinceReferenceDate: 5), "woke at \(wokeAt)")
        }
    }

    /// The same runtime with the hook absent: everything else a TestScheduler does, tasks that
    /// prefer it included, works as before (only the capture needs the hook).
    @Test(.timeLimit(.minutes(5)))
    func withoutTheEnqueueHookTasksThatPreferATestSchedulerStillRun() async {
        await #expect(processExitsWith: .success) {
            hide(RuntimeSymbolAbsenceTests.enqueueHook)
            precondition(!GlobalEnqueueHook.isAvailable, "the hook was not hidden")
            let scheduler = TestScheduler()
            let task = Task(executorPreference: scheduler) {
                try? await Task.sleep(for: .seconds(5), clock: scheduler.clock)
                return Scheduler.current === scheduler
            }
            driveInTheBackground(scheduler)
            let ranOnScheduler = await task.value
            precondition(ranOnScheduler, "the task did not run on its preferred scheduler")
        }
    }

    /// `swift_task_getMainExecutor_hook` absent (a runtime before Swift 6.1: on Apple platforms,
    /// before macOS 15.4 and iOS 18.4; Platform notes, "The main-executor hook's first
    /// release"): a capture on the
    /// main actor says once that main-actor tasks cannot be captured, and still captures global
    /// tasks; the main-actor task runs on the real main actor.
    @Test(.timeLimit(.minutes(5)))
    func withoutTheMainExecutorHookACaptureOnTheMainActorSaysSoAndCapturesGlobalTasks() async {
        await #expect(processExitsWith: .success) {
            hide("swift_task_getMainExecutor_hook")
            precondition(!MainExecutorHook.isAvailable, "the hook was not hidden")
            let ranOnMain = Locked(false)
            let (pending, warnings) = await Warning.capture {
                await MainActor.run {
                    let scheduler = TestScheduler()
                    return scheduler.withCapturedTasks { () -> Int in
                        Task.detached {}
                        Task { @MainActor in ranOnMain.withLock { $0 = true } }
                        scheduler.withCapturedTasks {}
                        let pending = scheduler.pendingCount
                        scheduler.advance(by: 0)
                        return pending
                    }
                }
            }
            precondition(pending == 1, "expected the detached task alone to be captured, got \(pending)")
            precondition(warnings.count == 1, "expected one warning, got \(warnings)")
            precondition(warnings[0].contains("swift_task_getMainExecutor_hook"), warnings[0])
            // The first runtime with the hook, as the Platform notes give it.
            precondition(warnings[0].contains("arrived with the Swift 6.1 runtime"), warnings[0])
            await MainActor.run {}
            precondition(ranOnMain.value, "the main-actor task did not run on the real main actor")
        }
    }

    /// The TSan annotations absent (a build without ThreadSanitizer, or hidden): `Lock` is a
    /// plain `Mutex`, still mutually exclusive. Under a real TSan, hiding them would make TSan
    /// report the `Mutex` itself (Platform notes, item 15), so contention is checked only where
    /// TSan is not loaded.
    @Test(.timeLimit(.minutes(5)))
    func withoutTheThreadSanitizerAnnotationsALockStillExcludes() async {
        await #expect(processExitsWith: .success) {
            let underTSan = RuntimeSymbol.address(of: "__tsan_acquire") != nil
            hide("__tsan_acquire,__tsan_release")
            precondition(ThreadSanitizer.acquire == nil && ThreadSanitizer.release == nil, "not hidden")
            let lock = Lock(0)
            let threads = underTSan ? 1 : 4
            DispatchQueue.concurrentPerform(iterations: threads) { _ in
                for _ in 0..<10_000 { lock.withLock { $0 += 1 } }
            }
            let total = lock.withLock { $0 }
            precondition(total == threads * 10_000, "lost increments: \(total)")
        }
    }
}

/// Advances `scheduler` by 100 virtual seconds in 1 s steps, a millisecond apart, from a thread
/// of its own, so that no pool thread blocks: they outlast a 5 s sleep whenever the task reaches
/// it.
private func driveInTheBackground(_ scheduler: TestScheduler) {
    Thread {
        for _ in 0..<100 {
            scheduler.advance(by: 1)
            usleep(1000)
        }
    }.start()
}

/// Lists `names` in `SCHEDULERS_HIDE_RUNTIME_SYMBOLS`. Call it first thing in a child process:
/// a symbol already looked up there stays found.
private func hide(_ names: String) {
    setenv(RuntimeSymbol.hideVariable, names, 1)
}
#endif
