import Foundation
import OpenCombineSchedulers
import Schedulers
import Testing

#if canImport(Combine)
import Combine
#else
import OpenCombine
#endif

/// The repeating `schedule(after:interval:)`, which Combine's debounce and timers use.
@Suite("repeating schedule")
struct RepeatingTests {
    @Test func ticksEveryIntervalInVirtualTimeUntilCancelled() {
        let test = TestScheduler()
        let scheduler = test.combine
        let ticks = Recorder<TimeInterval>()
        let cancellable = scheduler.schedule(after: scheduler.now.advanced(by: 1), interval: 2) {
            ticks.append(test.now.timeIntervalSinceReferenceDate)
        }
        test.advance(by: 6)
        #expect(ticks.values == [1, 3, 5])
        cancellable.cancel()
        #expect(test.pendingCount == 0)
        test.advance(by: 10)
        #expect(ticks.values == [1, 3, 5])
    }

    @Test func releasingTheCancellableCancelsLikeDispatchQueue() {
        let test = TestScheduler()
        let ticks = Recorder<Int>()
        do {
            _ = test.combine.schedule(after: test.combine.now, interval: 1) { ticks.append(1) }
        }
        #expect(test.pendingCount == 0)
        test.advance(by: 5)
        #expect(ticks.values.isEmpty)
    }

    @Test func aNonPositiveIntervalRunsOnce() {
        let test = TestScheduler()
        let ticks = Recorder<Int>()
        let cancellables = [0, -1, .infinity, .nan].map { (interval: TimeInterval) in
            test.combine.schedule(after: test.combine.now, interval: .init(interval)) { ticks.append(1) }
        }
        test.advance(by: 100)
        #expect(ticks.values.count == 4)
        #expect(test.pendingCount == 0)
        _ = cancellables
    }

    @Test func theImmediateSchedulerRunsARepeatingActionOnceInline() {
        let ticks = Recorder<Int>()
        let scheduler = Schedulers.Scheduler.immediate.combine
        let cancellable = scheduler.schedule(after: scheduler.now, interval: 1) { ticks.append(1) }
        #expect(ticks.values == [1])
        cancellable.cancel()
    }
}
