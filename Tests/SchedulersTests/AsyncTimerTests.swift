import Foundation
import Schedulers
import Testing
import TestSupport

/// `Scheduler.timer(every:leeway:)`, a `Scheduler.TimerSequence` whose iterator owns the timer.
@Suite(.ownThread, .timeLimit(.minutes(5))) struct AsyncTimerTests {
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

    @Test func droppingTheIteratorDisposesTheTimer() {
        let scheduler = TestScheduler()
        let sequence = scheduler.timer(every: .seconds(1))
        // On a TestScheduler a tick is pending only while a consumer waits for it.
        let consumer = Task(executorPreference: scheduler) {
            var iterator: Scheduler.TimerSequence.Iterator? = sequence.makeAsyncIterator()
            _ = await iterator?.next()
            iterator = nil
        }
        scheduler.advance(by: 0)
        #expect(scheduler.pendingCount == 1)
        scheduler.advance(by: 1)
        #expect(scheduler.pendingCount == 0)
        consumer.cancel()
    }

    @Test func aSequenceNeverIteratedSchedulesNothing() {
        let scheduler = TestScheduler()
        var sequence: Scheduler.TimerSequence? = scheduler.timer(every: .seconds(1))
        #expect(scheduler.pendingCount == 0)
        scheduler.advance(by: 10)
        #expect(scheduler.pendingCount == 0)
        _ = sequence
        sequence = nil
        #expect(scheduler.pendingCount == 0)
    }

    /// The loop ends (break, return, a thrown error) while the sequence value is still held:
    /// the timer stops all the same.
    @Test(arguments: ["break", "return", "throw"])
    func endingTheLoopStopsTheTimerWhileTheSequenceIsRetained(_ exit: String) {
        struct Stop: Error {}
        let scheduler = TestScheduler()
        let sequence = scheduler.timer(every: .seconds(1))
        let dates = Locked<[Date]>([])
        Task(executorPreference: scheduler) {
            func consume() async throws {
                for await date in sequence {
                    dates.withLock { $0.append(date) }
                    guard dates.value.count == 2 else { continue }
                    if exit == "return" { return }
                    if exit == "throw" { throw Stop() }
                    break
                }
            }
            try? await consume()
        }
        scheduler.advance(by: 2)
        #expect(dates.value == [1, 2].map { Date(timeIntervalSinceReferenceDate: $0) })
        #expect(scheduler.pendingCount == 0)
        scheduler.advance(by: 5)
        #expect(dates.value.count == 2)
        withExtendedLifetime(sequence) {}
    }

    /// The first tick is one interval after the call, even when the loop starts later; a loop
    /// that starts after that gets its first tick at once.
    @Test func theFirstTickIsOneIntervalAfterTheCall() {
        let scheduler = TestScheduler()
        let sequence = scheduler.timer(every: .seconds(1))
        scheduler.advance(by: 0.5)
        let dates = Locked<[Date]>([])
        Task(executorPreference: scheduler) {
            for await date in sequence {
                dates.withLock { $0.append(date) }
                if dates.value.count == 2 { break }
            }
        }
        scheduler.advance(by: 2)
        #expect(dates.value == [1, 2].map { Date(timeIntervalSinceReferenceDate: $0) })

        let late = Locked<[Date]>([])
        Task(executorPreference: scheduler) {  // starts at 2.5, 1.5 after the call
            for await date in sequence {
                late.withLock { $0.append(date) }
                if late.value.count == 2 { break }
            }
        }
        scheduler.advance(by: 2)
        #expect(late.value == [2.5, 3.5].map { Date(timeIntervalSinceReferenceDate: $0) })
        #expect(scheduler.pendingCount == 0)
    }

    @Test(.timeLimit(.minutes(5)))
    func theIterationEndsWhenItsTestSchedulerIsDeinitialised() async {
        var scheduler: TestScheduler? = TestScheduler()
        let weak = Weak(scheduler!)
        var iterator = scheduler!.timer(every: .seconds(1)).makeAsyncIterator()
        scheduler!.advance(by: 2)
        scheduler = nil
        #expect(weak.object == nil)
        var count = 0
        while await iterator.next() != nil { count += 1 }  // ends: the scheduler is gone
        #expect(count == 0)  // nobody waited while it was driven, so no tick was due
    }

    @Test func cancellingTheConsumerDisposesTheTimer() async {
        let scheduler = TestScheduler()
        let stream = scheduler.timer(every: .seconds(1))
        // A task outside every world joins the scheduler's as it iterates: no warning.
        let (_, warnings) = await Warning.capture(about: scheduler) {
            let consumer = Task {
                for await _ in stream {}
            }
            consumer.cancel()
            await consumer.value
        }
        #expect(scheduler.pendingCount == 0)
        #expect(warnings == [])
    }

    @Test(.timeLimit(.minutes(5)))
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
