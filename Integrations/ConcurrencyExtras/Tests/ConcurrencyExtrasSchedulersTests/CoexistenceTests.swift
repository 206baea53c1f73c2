import ConcurrencyExtras
import Foundation
import Schedulers
import XCTest

/// `withMainSerialExecutor` (swift-concurrency-extras 1.4.3) and `TestScheduler.withCapturedTasks`
/// in one process, in either order, nested and in sequence.
///
/// Both set the runtime's `swift_task_enqueueGlobal_hook`, and swift-concurrency-extras reads
/// "a hook is set" as "the main serial executor is in use": if ours were left installed, its
/// `withMainSerialExecutor` would put its own hook back on exit and send every global job in the
/// process to the main actor from then on. Each test ends by checking that no hook is left and
/// that a plain `Task.detached` runs on the global pool.
///
/// XCTest on Linux runs these on the main thread, and so they are a fair model of the failure:
/// the main thread waits on a semaphore for the detached task (no cooperative-pool thread is
/// blocked), and a job sent to the main actor could not run until the wait gives up, which fails
/// the test instead of hanging it. One process runs every test here, one after another, so a hook
/// left behind by one would also fail every test after it.
final class CoexistenceTests: XCTestCase {
    /// Every scenario, one after another, in one test.
    func testAllOrdersInSequence() {
        for _ in 0..<3 {
            captureInsideMainSerialExecutor()
            mainSerialExecutorInsideCapture()
            captureThenMainSerialExecutor()
            mainSerialExecutorThenCapture()
            nestedFourDeep()
        }
    }

    func testCaptureInsideMainSerialExecutor() { captureInsideMainSerialExecutor() }
    func testMainSerialExecutorInsideCapture() { mainSerialExecutorInsideCapture() }
    func testCaptureThenMainSerialExecutor() { captureThenMainSerialExecutor() }
    func testMainSerialExecutorThenCapture() { mainSerialExecutorThenCapture() }
    func testNestedFourDeep() { nestedFourDeep() }

    // MARK: Scenarios

    /// Inside `withMainSerialExecutor`, a capture captures the tasks started on its thread, and
    /// swift-concurrency-extras' hook still gets the jobs it does not capture.
    private func captureInsideMainSerialExecutor(file: StaticString = #filePath, line: UInt = #line) {
        withMainSerialExecutor {
            XCTAssertTrue(uncheckedUseMainSerialExecutor, file: file, line: line)
            let scheduler = TestScheduler()
            scheduler.withCapturedTasks {
                expectCaptured(on: scheduler, file: file, line: line)
                expectTaskFromAnotherThreadGoesToMainActor(capturedBy: scheduler, file: file, line: line)
            }
            XCTAssertTrue(uncheckedUseMainSerialExecutor, "the capture took its hook out", file: file, line: line)
        }
        expectNoHookLeft(file: file, line: line)
    }

    /// Inside a capture, `withMainSerialExecutor` wins while it runs (the innermost wins); when
    /// the capture ends, neither hook is left, although swift-concurrency-extras put its own back
    /// on its way out (it had taken ours for its own).
    private func mainSerialExecutorInsideCapture(file: StaticString = #filePath, line: UInt = #line) {
        let scheduler = TestScheduler()
        scheduler.withCapturedTasks {
            expectCaptured(on: scheduler, file: file, line: line)
            withMainSerialExecutor {
                expectTaskFromThisThreadRunsOnMainActor(file: file, line: line)
                XCTAssertEqual(scheduler.pendingCount, 0, file: file, line: line)
            }
        }
        expectNoHookLeft(file: file, line: line)
    }

    private func captureThenMainSerialExecutor(file: StaticString = #filePath, line: UInt = #line) {
        let scheduler = TestScheduler()
        scheduler.withCapturedTasks {
            expectCaptured(on: scheduler, file: file, line: line)
        }
        expectNoHookLeft(file: file, line: line)
        withMainSerialExecutor {
            expectTaskFromThisThreadRunsOnMainActor(file: file, line: line)
        }
        expectNoHookLeft(file: file, line: line)
    }

    private func mainSerialExecutorThenCapture(file: StaticString = #filePath, line: UInt = #line) {
        withMainSerialExecutor {
            expectTaskFromThisThreadRunsOnMainActor(file: file, line: line)
        }
        expectNoHookLeft(file: file, line: line)
        let scheduler = TestScheduler()
        scheduler.withCapturedTasks {
            expectCaptured(on: scheduler, file: file, line: line)
        }
        expectNoHookLeft(file: file, line: line)
    }

    /// Each nested in the other, twice: each innermost scope wins while it runs, and every one
    /// leaves what it found.
    private func nestedFourDeep(file: StaticString = #filePath, line: UInt = #line) {
        let outer = TestScheduler()
        let inner = TestScheduler()
        withMainSerialExecutor {
            outer.withCapturedTasks {
                expectCaptured(on: outer, file: file, line: line)
                withMainSerialExecutor {
                    expectTaskFromThisThreadRunsOnMainActor(file: file, line: line)
                    inner.withCapturedTasks {
                        expectCaptured(on: inner, file: file, line: line)
                        expectTaskFromAnotherThreadGoesToMainActor(capturedBy: inner, file: file, line: line)
                    }
                    expectTaskFromThisThreadRunsOnMainActor(file: file, line: line)
                }
            }
            XCTAssertTrue(uncheckedUseMainSerialExecutor, file: file, line: line)
            expectTaskFromThisThreadRunsOnMainActor(file: file, line: line)
        }
        expectNoHookLeft(file: file, line: line)
    }

    // MARK: Checks

    /// A `Task {}` started here waits on `scheduler`, and runs in its `advance`.
    private func expectCaptured(on scheduler: TestScheduler, file: StaticString, line: UInt) {
        let ran = LockIsolated(false)
        let before = scheduler.pendingCount
        Task { ran.setValue(true) }
        XCTAssertEqual(scheduler.pendingCount, before + 1, "the task was not captured", file: file, line: line)
        scheduler.advance(by: 0)
        XCTAssertTrue(ran.value, "the captured task did not run in advance", file: file, line: line)
    }

    /// A `Task {}` started on this (the main) thread goes to swift-concurrency-extras' main serial
    /// executor: it runs on the main queue once the main run loop turns.
    private func expectTaskFromThisThreadRunsOnMainActor(file: StaticString, line: UInt) {
        let onMainQueue = LockIsolated<Bool?>(nil)
        Task { onMainQueue.setValue(MainQueue.isCurrent) }
        spinMainRunLoop(until: { onMainQueue.value != nil }, file: file, line: line)
        XCTAssertEqual(onMainQueue.value, true, "the task did not go to the main serial executor", file: file, line: line)
    }

    /// A `Task {}` started on another thread is not captured, and so goes to the hook that was
    /// installed before the capture: swift-concurrency-extras', which sends it to the main actor.
    ///
    /// It runs there when the main run loop turns, inside the capture: a run loop spun inside a
    /// synchronous capture leaves alone the work the body did not start (the contract's "Run
    /// loops"), so the runtime's hop of that job back off the main actor, made on this capturing
    /// thread, is not captured either: it goes to swift-concurrency-extras' hook again, and the
    /// task runs on the main queue. (Before that rule, the hop turned up on `scheduler`.)
    private func expectTaskFromAnotherThreadGoesToMainActor(
        capturedBy scheduler: TestScheduler, file: StaticString, line: UInt
    ) {
        let ran = LockIsolated(false)
        let onMainQueue = LockIsolated<Bool?>(nil)
        let before = scheduler.pendingCount
        Thread {
            Task {
                onMainQueue.setValue(MainQueue.isCurrent)
                ran.setValue(true)
            }
        }.start()
        spinMainRunLoop(until: { ran.value || scheduler.pendingCount > before }, file: file, line: line)
        XCTAssertTrue(ran.value, "a task the body did not start was captured", file: file, line: line)
        XCTAssertEqual(onMainQueue.value, true, "the job bypassed the earlier hook", file: file, line: line)
        XCTAssertEqual(scheduler.pendingCount, before, file: file, line: line)
    }

    /// Neither library's hook is left installed, and a plain detached task runs on the global
    /// pool: it finishes while the main thread waits, off the main queue.
    private func expectNoHookLeft(file: StaticString, line: UInt) {
        XCTAssertFalse(uncheckedUseMainSerialExecutor, "a global-enqueue hook is still installed", file: file, line: line)
        let finished = DispatchSemaphore(value: 0)
        let onMainQueue = LockIsolated<Bool?>(nil)
        Task.detached {
            onMainQueue.setValue(MainQueue.isCurrent)
            finished.signal()
        }
        // The main thread waits (no pool thread does): a job sent to the main actor cannot run
        // until this gives up, so a hook left behind fails here rather than hanging the run.
        XCTAssertEqual(
            finished.wait(timeout: .now() + 10), .success,
            "a detached task did not run on the global pool within 10 s", file: file, line: line)
        XCTAssertEqual(onMainQueue.value, false, file: file, line: line)
    }

    // MARK: Support

    override class func setUp() {
        super.setUp()
        DispatchQueue.main.setSpecific(key: MainQueue.key, value: true)
    }

    /// Turns the main run loop (which drains the main queue) until `condition` holds, for at most
    /// 10 s.
    private func spinMainRunLoop(until condition: () -> Bool, file: StaticString, line: UInt) {
        let deadline = Date(timeIntervalSinceNow: 10)
        while !condition(), Date() < deadline {
            _ = RunLoop.main.run(mode: .default, before: Date(timeIntervalSinceNow: 0.01))
        }
        XCTAssertTrue(condition(), "nothing ran on the main queue within 10 s", file: file, line: line)
    }
}

private enum MainQueue {
    static let key = DispatchSpecificKey<Bool>()

    /// Whether this code runs as main-queue work (Platform notes: `Thread.isMainThread` alone
    /// cannot tell, where something other than the main thread drains the main queue).
    static var isCurrent: Bool {
        DispatchQueue.getSpecific(key: key) == true
    }
}
