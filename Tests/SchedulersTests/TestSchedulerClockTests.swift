import Foundation
import Schedulers
import Testing
import TestSupport

/// `TestScheduler.Clock`: a `Clock` view of the scheduler's virtual time.
@Suite(.ownThread, .timeLimit(.minutes(5))) struct TestSchedulerClockTests {
    @Test func nowIsTheSchedulersVirtualNow() {
        let scheduler = TestScheduler(startDate: Date(timeIntervalSinceReferenceDate: 100))
        let clock = scheduler.clock
        #expect(clock.now.date == scheduler.now)
        scheduler.advance(by: 2.5)
        #expect(clock.now.date == Date(timeIntervalSinceReferenceDate: 102.5))
        #expect(clock.minimumResolution == .zero)
    }

    @Test func nowInsideAnActionIsItsDueDate() {
        let scheduler = TestScheduler()
        let seen = Locked<TestScheduler.Clock.Instant?>(nil)
        scheduler.schedule(afterDelay: 3) { seen.withLock { $0 = scheduler.clock.now } }
        scheduler.advance(by: 10)
        #expect(seen.value?.date == Date(timeIntervalSinceReferenceDate: 3))
    }

    @Test func instantArithmetic() {
        let start = TestScheduler.Clock.Instant(date: Date(timeIntervalSinceReferenceDate: 10))
        let later = start.advanced(by: .milliseconds(1500))
        #expect(later.date == Date(timeIntervalSinceReferenceDate: 11.5))
        #expect(start.duration(to: later) == .milliseconds(1500))
        #expect(later.duration(to: start) == .milliseconds(-1500))
        #expect(start < later)
        #expect(start == TestScheduler.Clock.Instant(date: Date(timeIntervalSinceReferenceDate: 10)))
    }

    /// After `advance(by: 1e300)` the span is far beyond `Duration`'s range: it saturates.
    @Test func instantArithmeticSaturatesInsteadOfTrapping() {
        let scheduler = TestScheduler()
        let start = scheduler.clock.now
        scheduler.advance(by: 1e300)
        let end = scheduler.clock.now
        let longest = TestScheduler.Clock.Instant.longestDuration
        #expect(longest.components == (Int64.max, 999_999_999_999_999_999))
        #expect(start.duration(to: end) == longest)
        #expect(end.duration(to: start) == .zero - longest)
        // A representable span is still exact.
        #expect(start.duration(to: start.advanced(by: .seconds(1_000))) == .seconds(1_000))
        // Moving past Double's finite range stops at its edge.
        let far = TestScheduler.Clock.Instant(date: Date(timeIntervalSinceReferenceDate: .greatestFiniteMagnitude))
        #expect(far.advanced(by: longest).date.timeIntervalSinceReferenceDate == .greatestFiniteMagnitude)
        #expect(end.advanced(by: longest) >= end)
        let nearBottom = TestScheduler.Clock.Instant(date: Date(timeIntervalSinceReferenceDate: -.greatestFiniteMagnitude))
        #expect(nearBottom.advanced(by: .zero - longest).date.timeIntervalSinceReferenceDate == -.greatestFiniteMagnitude)
    }

    @Test func sleepWakesExactlyAtTheDeadline() {
        let scheduler = TestScheduler()
        let wokeAt = Locked<Date?>(nil)
        Task(executorPreference: scheduler) {
            try await scheduler.clock.sleep(until: scheduler.clock.now.advanced(by: .seconds(5)))
            wokeAt.withLock { $0 = scheduler.now }
        }
        scheduler.step()  // the task starts and goes to sleep
        #expect(scheduler.pendingCount == 1)
        scheduler.advance(by: 4.75)
        #expect(wokeAt.value == nil)
        scheduler.advance(by: 10)
        #expect(wokeAt.value == Date(timeIntervalSinceReferenceDate: 5))
    }

    @Test func aPastDeadlineWakesAtTheNextStep() {
        let scheduler = TestScheduler()
        scheduler.advance(by: 10)
        let woke = Locked(false)
        Task(executorPreference: scheduler) {
            try await scheduler.clock.sleep(until: .init(date: .distantPast))
            woke.withLock { $0 = true }
        }
        scheduler.advance(by: 0)
        #expect(woke.value)
        #expect(scheduler.now == Date(timeIntervalSinceReferenceDate: 10))
    }

    @Test func cancellingASleepThrowsAtOnceAndDisposesTheWakeUp() async {
        let scheduler = TestScheduler()
        let task = Task(executorPreference: scheduler) {
            try await Task.sleep(for: .seconds(60), clock: scheduler.clock)
        }
        scheduler.step()
        #expect(scheduler.pendingCount == 1)  // the wake-up
        task.cancel()
        // The wake-up is gone; what is pending is the task's job, resuming with the error.
        #expect(scheduler.pendingCount == 1)
        scheduler.step()
        #expect(scheduler.pendingCount == 0)
        #expect(scheduler.now == Date(timeIntervalSinceReferenceDate: 0))
        await #expect(throws: CancellationError.self) { try await task.value }
    }

    @Test func aSleepOnADroppedSchedulerThrowsAndDoesNotKeepItAlive() async {
        var scheduler: TestScheduler? = TestScheduler()
        let weak = Weak(scheduler!)
        let clock = scheduler!.clock
        // On the global executor, so only the clock refers to the scheduler. The task joins the
        // scheduler's world by sleeping on it, which reports nothing (a capture of warnings
        // about the scheduler would keep it alive, so it captures by task).
        let (_, warnings) = await Warning.capture {
            let task = Task { try await clock.sleep(for: .seconds(5)) }
            #expect(await waitUntilOffPool { weak.object?.pendingCount == 1 })
            scheduler = nil
            #expect(weak.object == nil)
            await #expect(throws: CancellationError.self) { try await task.value }
            await #expect(throws: CancellationError.self) { try await clock.sleep(for: .seconds(1)) }
        }
        #expect(warnings == [])
    }
}
