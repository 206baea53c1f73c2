import Foundation
import Schedulers
import Testing
import TestSupport

/// `Scheduler.timer(every:leeway:)`, an `AsyncStream<Date>`.
@Suite struct AsyncTimerTests {
    @Test func onATestSchedulerItYieldsTheVirtualNowOfEachTick() {
        let scheduler = TestScheduler()
        let dates = Locked<[Date]>([])
        Task(executorPreference: scheduler) {
            for await date in scheduler.timer(every: .seconds(2)) {
                dates.withLock { $0.append(date) }
                if dates.value.count == 3 { break }
            }
        }
        scheduler.step()  // starts the task, which starts the timer
        scheduler.advance(by: 1.75)
        #expect(dates.value.isEmpty)  // the first tick is one interval after the call
        scheduler.advance(by: 100)
        #expect(dates.value == [2, 4, 6].map { Date(timeIntervalSinceReferenceDate: $0) })
        // Breaking out of the loop disposed the timer.
        #expect(scheduler.pendingCount == 0)
    }

    @Test func droppingTheStreamDisposesTheTimer() {
        let scheduler = TestScheduler()
        var stream: AsyncStream<Date>? = scheduler.timer(every: .seconds(1))
        #expect(scheduler.pendingCount == 1)
        _ = stream
        stream = nil
        #expect(scheduler.pendingCount == 0)
    }

    @Test(.timeLimit(.minutes(1)))
    func theStreamFinishesWhenItsTestSchedulerIsDeinitialised() async {
        var scheduler: TestScheduler? = TestScheduler()
        let weak = Weak(scheduler!)
        let stream = scheduler!.timer(every: .seconds(1))
        scheduler!.advance(by: 2)
        scheduler = nil
        #expect(weak.object == nil)
        var count = 0
        for await _ in stream { count += 1 }  // ends: the discarded timer finished the stream
        #expect(count == 1)  // the newest of the two ticks, buffered before the scheduler went
    }

    @Test func cancellingTheConsumerDisposesTheTimer() async {
        let scheduler = TestScheduler()
        let stream = scheduler.timer(every: .seconds(1))
        let consumer = Task {
            for await _ in stream {}
        }
        consumer.cancel()
        await consumer.value
        #expect(scheduler.pendingCount == 0)
    }

    @Test(.timeLimit(.minutes(1)))
    func onAQueueTicksComeAtLeastAnIntervalApart() async {
        let scheduler = TargetQueueScheduler()
        let clock = ContinuousClock()
        let start = clock.now
        var ticks: [ContinuousClock.Instant] = []
        var dates: [Date] = []
        let before = Date()
        for await date in scheduler.timer(every: .milliseconds(20)) {
            ticks.append(clock.now)
            dates.append(date)
            if ticks.count == 3 { break }
        }
        // Lower bounds only: the first tick comes an interval after the call, and the stream
        // yields at most one date per tick (more could arrive no sooner than 3 intervals).
        #expect(ticks[0] - start >= .milliseconds(20))
        #expect(ticks[2] - start >= .milliseconds(60))
        #expect(dates[0] >= before)
        #expect(dates == dates.sorted())
    }

    @Test func onAQueueBreakingOutDisposesTheTimer() async {
        let scheduler = RecordingQueueScheduler()
        do {
            for await _ in scheduler.timer(every: .milliseconds(5)) { break }
        }
        let timers = scheduler.repeating.value
        #expect(timers.count == 1)
        #expect(timers.allSatisfy { $0.isDisposed })
    }
}
