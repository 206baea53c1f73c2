import Foundation
@testable import Schedulers
import Testing
import TestSupport

/// A `timer(every:)` sequence ticks only while someone iterates it, so `clock.run()` returns
/// after the ticks that were taken.
@Suite(.ownThread, .timeLimit(.minutes(5))) struct TimerConsumerTests {
    /// swift-clocks' `testRunMultipleUnitsOfWork`, moved onto a TestScheduler.
    @Test func runTakesTheTicksAPrefixTakes() async {
        for _ in 0..<stressCount(100) {
            let scheduler = TestScheduler()
            let ticks = Locked([TimeInterval]())
            await scheduler.withCapturedTasks {
                let task = Task {
                    for await date in scheduler.timer(every: .seconds(1)).prefix(10) {
                        ticks.withLock { $0.append(date.timeIntervalSinceReferenceDate) }
                    }
                }
                await scheduler.clock.run()
                await task.value
            }
            #expect(ticks.value == (1...10).map(TimeInterval.init))
            #expect(scheduler.now.timeIntervalSinceReferenceDate == 10)
            #expect(scheduler.pendingCount == 0)
        }
    }

    /// A loop that breaks leaves nothing pending.
    @Test func aBreakEndsTheTicks() {
        let scheduler = TestScheduler()
        let ticks = Locked(0)
        scheduler.withCapturedTasks {
            Task {
                for await _ in scheduler.timer(every: .seconds(1)) {
                    let count = ticks.withLock { $0 += 1; return $0 }
                    if count == 3 { break }
                }
            }
            scheduler.stepAll()
        }
        #expect(ticks.value == 3)
        #expect(scheduler.pendingCount == 0)
    }

    /// A consumer that asks late gets the latest tick due by then, as a repeating timer would
    /// have buffered it, and the next one an interval after that.
    @Test func aLateConsumerGetsTheLatestTick() {
        let scheduler = TestScheduler()
        let dates = Locked([TimeInterval]())
        scheduler.withCapturedTasks {
            Task {
                var iterator = scheduler.timer(every: .seconds(1)).makeAsyncIterator()
                for _ in 0..<3 {
                    guard let date = await iterator.next() else { return }
                    dates.withLock { $0.append(date.timeIntervalSinceReferenceDate) }
                    try? await scheduler.clock.sleep(for: .milliseconds(2_500))
                }
            }
            scheduler.advance(by: 10)
        }
        #expect(dates.value == [1, 3, 6])
    }

    /// A repeating action scheduled directly still stops `run()`, after what is due now ran.
    @Test func runStillStopsAtARepeatingActionAfterRunningWhatIsDueNow() async {
        let scheduler = TestScheduler()
        let runs = Locked(0)
        let (_, warnings) = await Warning.capture(about: scheduler) {
            let timer = scheduler.schedule(after: .zero, repeatingEvery: .seconds(1)) { runs.withLock { $0 += 1 } }
            await scheduler.clock.run()
            timer?.dispose()
        }
        #expect(runs.value == 1)
        #expect(warnings.count == 1)
    }
}
