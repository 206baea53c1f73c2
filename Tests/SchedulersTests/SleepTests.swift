import Foundation
import Schedulers
import Testing
import TestSupport

/// `Scheduler.sleep(for:)` and `sleep(until:)`.
@Suite(.ownThread, .timeLimit(.minutes(5))) struct SleepTests {
    @Test func sleepForIsVirtualOnATestScheduler() {
        let scheduler = TestScheduler()
        let wokeAt = Locked<Date?>(nil)
        Task(executorPreference: scheduler) {
            try await scheduler.sleep(for: .seconds(2))
            wokeAt.withLock { $0 = scheduler.now }
        }
        scheduler.advance(by: 1)
        #expect(wokeAt.value == nil)
        scheduler.advance(by: 1)
        #expect(wokeAt.value == Date(timeIntervalSinceReferenceDate: 2))
    }

    @Test func sleepUntilIsVirtualOnATestScheduler() {
        let scheduler = TestScheduler()
        let wokeAt = Locked<Date?>(nil)
        Task(executorPreference: scheduler) {
            try await scheduler.sleep(until: Date(timeIntervalSinceReferenceDate: 7))
            wokeAt.withLock { $0 = scheduler.now }
        }
        scheduler.advance(by: 6)
        #expect(wokeAt.value == nil)
        scheduler.advance(by: 100)
        #expect(wokeAt.value == Date(timeIntervalSinceReferenceDate: 7))
    }

    @Test func sleepForOnAQueueWaitsAtLeastTheDuration() async throws {
        let scheduler = TargetQueueScheduler()
        let clock = ContinuousClock()
        let start = clock.now
        try await scheduler.sleep(for: .milliseconds(50))
        #expect(clock.now - start >= .milliseconds(50))
    }

    @Test func sleepUntilOnAQueueWaitsUntilTheDate() async throws {
        let scheduler = TargetQueueScheduler()
        let date = Date(timeIntervalSinceNow: 0.05)
        try await scheduler.sleep(until: date)
        #expect(Date() >= date)
    }

    @Test func sleepOnTheImmediateSchedulerSuspendsWithoutBlocking() async throws {
        let clock = ContinuousClock()
        let start = clock.now
        try await Scheduler.immediate.sleep(for: .milliseconds(20))
        #expect(clock.now - start >= .milliseconds(20))
    }

    @Test func cancellingASleepOnAQueueThrowsAtOnce() async {
        let scheduler = TargetQueueScheduler()
        let task = Task { try await scheduler.sleep(for: .seconds(3600)) }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
    }

    @Test func cancellingASleepOnATestSchedulerThrowsWithoutDrivingIt() async {
        let scheduler = TestScheduler()
        // On the global executor: the error must arrive without anyone driving the scheduler.
        // The task joins the scheduler's world by sleeping on it, which reports nothing.
        let (_, warnings) = await Warning.capture(about: scheduler) {
            let task = Task { try await scheduler.sleep(until: .distantFuture) }
            #expect(await waitUntilOffPool { scheduler.pendingCount == 1 })
            task.cancel()
            await #expect(throws: CancellationError.self) { try await task.value }
        }
        #expect(scheduler.pendingCount == 0)  // the wake-up was disposed
        #expect(warnings == [])
    }

    @Test func anAlreadyCancelledTaskThrowsWithoutSchedulingAnything() async {
        let scheduler = TestScheduler()
        // A task outside every world joins the scheduler's by sleeping on it: nothing reported.
        let (_, warnings) = await Warning.capture(about: scheduler) {
            let task = Task {
                withUnsafeCurrentTask { $0?.cancel() }
                try await scheduler.sleep(for: .seconds(1))
            }
            await #expect(throws: CancellationError.self) { try await task.value }
        }
        #expect(scheduler.pendingCount == 0)
        #expect(warnings == [])
    }

    @Test func theWakeUpRunsAsTheCurrentSchedulerOfTheSubscriptionSchedulersTarget() {
        // Inside a TestScheduler's job, the subscription scheduler sleeps in virtual time.
        let scheduler = TestScheduler()
        let wokeAt = Locked<Date?>(nil)
        Task(executorPreference: scheduler) {
            try await Scheduler.subscription.sleep(for: .seconds(3))
            wokeAt.withLock { $0 = scheduler.now }
        }
        scheduler.advance(by: 3)
        #expect(wokeAt.value == Date(timeIntervalSinceReferenceDate: 3))
    }
}
