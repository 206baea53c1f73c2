import Foundation
import Schedulers
import Testing
import TestSupport

/// Infinite targets are valid and run everything pending, but `now` never becomes
/// infinite; `.distantFuture` is an ordinary finite date. (NaN is bad input: PreconditionExitTests.)
@Suite(.ownThread, .timeLimit(.minutes(5))) struct TestSchedulerInfiniteTimeTests {
    let start = Date(timeIntervalSinceReferenceDate: 0)

    private func scheduled(at offsets: [TimeInterval], on scheduler: TestScheduler) -> Locked<[Date]> {
        let ran = Locked<[Date]>([])
        for offset in offsets {
            scheduler.schedule(after: start.addingTimeInterval(offset)) { ran.withLock { $0.append(scheduler.now) } }
        }
        return ran
    }

    @Test func advancingByInfinityRunsEverythingAndStopsAtTheLastActionsDate() {
        let scheduler = TestScheduler(startDate: start)
        let ran = scheduled(at: [100, 1, 5], on: scheduler)
        scheduler.advance(by: .infinity)
        #expect(ran.value == [1, 5, 100].map(start.addingTimeInterval))
        #expect(scheduler.now == start.addingTimeInterval(100))
        #expect(scheduler.pendingCount == 0)
        // Delays still count from a finite now.
        scheduler.schedule(afterDelay: 1) {}
        scheduler.advance(by: 1)
        #expect(scheduler.now == start.addingTimeInterval(101))
    }

    @Test func advancingToAnInfiniteDateRunsEverythingAndStopsAtTheLastActionsDate() {
        let scheduler = TestScheduler(startDate: start)
        let ran = scheduled(at: [3, 2], on: scheduler)
        scheduler.advance(to: Date(timeIntervalSinceReferenceDate: .infinity))
        #expect(ran.value == [2, 3].map(start.addingTimeInterval))
        #expect(scheduler.now == start.addingTimeInterval(3))
    }

    @Test func advancingByInfinityWithNothingPendingLeavesNowAlone() {
        let scheduler = TestScheduler(startDate: start)
        scheduler.advance(by: .infinity)
        #expect(scheduler.now == start)
    }

    @Test func anActionAtAnInfiniteDateRunsAtTheLargestFiniteDate() {
        let scheduler = TestScheduler(startDate: start)
        let ran = Locked<[Date]>([])
        scheduler.schedule(after: Date(timeIntervalSinceReferenceDate: .infinity)) { ran.withLock { $0.append(scheduler.now) } }
        scheduler.schedule(afterDelay: .infinity) { ran.withLock { $0.append(scheduler.now) } }
        #expect(scheduler.pendingCount == 2)
        scheduler.advance(by: .infinity)
        let largest = Date(timeIntervalSinceReferenceDate: .greatestFiniteMagnitude)
        #expect(ran.value == [largest, largest])
        #expect(scheduler.now.timeIntervalSinceReferenceDate.isFinite)
    }

    @Test func negativeInfinityRunsWhatIsDueNowAndLeavesNowAlone() {
        let scheduler = TestScheduler(startDate: start)
        let ran = scheduled(at: [0, 1], on: scheduler)
        scheduler.advance(by: -.infinity)
        #expect(ran.value == [start])
        scheduler.advance(to: Date(timeIntervalSinceReferenceDate: -.infinity))
        #expect(scheduler.now == start)
        #expect(scheduler.pendingCount == 1)
    }

    @Test func distantFutureIsAnOrdinaryDate() {
        let scheduler = TestScheduler(startDate: start)
        let ran = scheduled(at: [1], on: scheduler)
        scheduler.advance(to: .distantFuture)
        #expect(ran.value == [start.addingTimeInterval(1)])
        #expect(scheduler.now == .distantFuture)
        let later = Locked(false)
        scheduler.schedule(afterDelay: 1) { later.withLock { $0 = true } }
        scheduler.advance(by: 1)
        #expect(later.value)
    }

    @Test func extremeStartDatesAreOrdinary() {
        for date in [Date.distantPast, .distantFuture, Date(timeIntervalSinceReferenceDate: -.greatestFiniteMagnitude)] {
            let scheduler = TestScheduler(startDate: date)
            let order = Locked<[Int]>([])
            for index in 0..<3 { scheduler.schedule { order.withLock { $0.append(index) } } }
            scheduler.advance(by: 1)
            #expect(order.value == [0, 1, 2])
        }
    }
}
