import Foundation
@testable import Schedulers
import Testing
import TestSupport

/// `TestScheduler` as a `TaskExecutor`: jobs are queued like `schedule(_:)` and run only when
/// the test drives the scheduler.
@Suite(.ownThread, .timeLimit(.minutes(5))) struct TestSchedulerExecutorTests {
    @Test func aTaskPreferringItDoesNotStartUntilTheSchedulerIsDriven() {
        let scheduler = TestScheduler()
        let started = Locked(false)
        Task(executorPreference: scheduler) { started.withLock { $0 = true } }
        #expect(scheduler.pendingCount == 1)
        #expect(!started.value)
        scheduler.step()
        #expect(started.value)
        #expect(scheduler.pendingCount == 0)
    }

    @Test func jobsRunOnTheDrivingThreadAsTheCurrentScheduler() {
        let scheduler = TestScheduler()
        let driver = Thread.current
        let seen = Locked<(isCurrent: Bool, onDriver: Bool)?>(nil)
        Task(executorPreference: scheduler) {
            seen.withLock { $0 = (Scheduler.current === scheduler, Thread.current == driver) }
        }
        scheduler.step()
        #expect(seen.value?.isCurrent == true)
        #expect(seen.value?.onDriver == true)
    }

    @Test func jobsAreFIFOWithActionsScheduledAtTheSameTime() {
        let scheduler = TestScheduler()
        let order = Locked<[String]>([])
        scheduler.schedule { order.withLock { $0.append("action 1") } }
        Task(executorPreference: scheduler) { order.withLock { $0.append("task") } }
        scheduler.schedule { order.withLock { $0.append("action 2") } }
        #expect(scheduler.pendingCount == 3)
        scheduler.stepAll()
        #expect(order.value == ["action 1", "task", "action 2"])
    }

    @Test func aJobIsDueAtTheVirtualNow() {
        let scheduler = TestScheduler()
        scheduler.advance(by: 10)
        let seenNow = Locked<Date?>(nil)
        scheduler.schedule(afterDelay: 1) {}
        Task(executorPreference: scheduler) { seenNow.withLock { $0 = scheduler.now } }
        scheduler.step()  // the job, due at 10, comes before the action due at 11
        #expect(seenNow.value == Date(timeIntervalSinceReferenceDate: 10))
        #expect(scheduler.pendingCount == 1)
    }

    @Test func everyJobOfATaskRunsThere() {
        let scheduler = TestScheduler()
        let currents = Locked<[Bool]>([])
        Task(executorPreference: scheduler) {
            for _ in 0..<3 {
                currents.withLock { $0.append(Scheduler.current === scheduler) }
                try await scheduler.sleep(for: .seconds(1))
            }
        }
        scheduler.advance(by: 1.5)
        #expect(currents.value == [true, true])
        scheduler.advance(by: 10)
        #expect(currents.value == [true, true, true])
        #expect(scheduler.pendingCount == 0)
    }

    @Test func withTaskExecutorPreferenceRunsTheBodyThere() async {
        let scheduler = TestScheduler()
        let isCurrent = Locked<Bool?>(nil)
        let outer = Task {
            await withTaskExecutorPreference(scheduler) {
                isCurrent.withLock { $0 = Scheduler.current === scheduler }
            }
        }
        // The body runs only when the scheduler is driven: wait for its job, then run it.
        #expect(await waitUntilOffPool { scheduler.pendingCount == 1 })
        #expect(isCurrent.value == nil)
        scheduler.stepAll()
        await outer.value
        #expect(isCurrent.value == true)
    }

    @Test func aFinishedTaskReleasesTheScheduler() {
        var scheduler: TestScheduler? = TestScheduler()
        let weak = Weak(scheduler!)
        Task(executorPreference: scheduler!) { [clock = scheduler!.clock] in
            try await Task.sleep(for: .seconds(1), clock: clock)
        }
        scheduler!.advance(by: 1)
        scheduler = nil
        #expect(weak.object == nil)
    }

    /// A task resumed from another thread: once its job is queued, a drive can run it, the task
    /// can end and the test can drop the scheduler, all before the resuming thread is back from
    /// `enqueue`, which then must not touch the scheduler. The resuming thread is held there
    /// until the scheduler is gone; the AddressSanitizer step of `.ci/run` sees any access
    /// (once, one did: the note for an adopted task's wake-up, read after the job was queued).
    @Test func aTaskResumedElsewhereMayFreeTheSchedulerBeforeItsResumeReturns() throws {
        var scheduler: TestScheduler? = TestScheduler()
        let weak = Weak(scheduler!)
        let continuation = Locked<CheckedContinuation<Void, Never>?>(nil)
        Task(executorPreference: scheduler!) {
            await withCheckedContinuation { resume in continuation.withLock { $0 = resume } }
        }
        scheduler!.stepAll()
        let awaiting = try #require(continuation.withLock { $0.take() })
        let gone = DispatchSemaphore(value: 0)
        let back = DispatchSemaphore(value: 0)
        Thread {
            AfterQueuingForTests.setOnThisThread { gone.wait() }
            awaiting.resume()
            AfterQueuingForTests.setOnThisThread(nil)
            back.signal()
        }.start()
        while scheduler!.pendingCount == 0 { usleep(100) }
        scheduler!.stepAll()
        scheduler = nil
        #expect(weak.object == nil)
        gone.signal()
        back.wait()
    }
}
