import Foundation
@testable import Schedulers
import Testing
import TestSupport

/// `clock.advance(by:)`, `advance(to:)` and `run()` keep every task started inside a capture
/// in virtual time to its end, called inside or after the capture, from the main actor, a
/// nonisolated context or another actor, with no warning where nothing is wrong.
@Suite(.ownThread, .timeLimit(.minutes(5))) struct DriveFromAnywhereTests {
    static let runs = stressCount(200)

    /// The shape that left virtual time in 112 of 200 runs: the capture returns, then a
    /// nonisolated test advances.
    @Test func advanceAfterTheCaptureFromANonisolatedTest() async {
        for _ in 0..<Self.runs {
            let scheduler = TestScheduler()
            let model = await SearchModel(clock: scheduler.clock)
            let (_, warnings) = await Warning.capture(about: scheduler) {
                await scheduler.withCapturedTasks { await model.queryChanged("s") }
                await scheduler.clock.advance(by: .milliseconds(299))
                #expect(await model.results == [])
                await scheduler.clock.advance(by: .milliseconds(1))
                #expect(await model.results == ["s"])
            }
            #expect(warnings == [])
        }
    }

    @Test func runAfterTheCaptureFromANonisolatedTest() async {
        for _ in 0..<Self.runs {
            let scheduler = TestScheduler()
            let model = await SearchModel(clock: scheduler.clock)
            let (_, warnings) = await Warning.capture(about: scheduler) {
                await scheduler.withCapturedTasks { await model.queryChanged("s") }
                await scheduler.clock.run()
                #expect(await model.results == ["s"])
                #expect(scheduler.clock.now == TestScheduler.Clock.Instant(date: Date(timeIntervalSinceReferenceDate: 0.3)))
            }
            #expect(warnings == [])
        }
    }

    @Test func advanceToAfterTheCaptureFromAnotherActor() async {
        for _ in 0..<Self.runs {
            let scheduler = TestScheduler()
            let model = await SearchModel(clock: scheduler.clock)
            let driver = Driver()
            let (_, warnings) = await Warning.capture(about: scheduler) {
                await scheduler.withCapturedTasks { await model.queryChanged("s") }
                await driver.advance(scheduler, to: scheduler.clock.now.advanced(by: .milliseconds(300)))
                #expect(await model.results == ["s"])
            }
            #expect(warnings == [])
        }
    }

    @MainActor @Test func advanceAfterTheCaptureFromTheMainActor() async {
        for _ in 0..<Self.runs {
            let scheduler = TestScheduler()
            let model = SearchModel(clock: scheduler.clock)
            let (_, warnings) = await Warning.capture(about: scheduler) {
                // A synchronous body: Swift picks the synchronous capture, on the main actor.
                scheduler.withCapturedTasks { model.queryChanged("s") }
                await scheduler.clock.advance(by: .milliseconds(300))
                #expect(model.results == ["s"])
            }
            #expect(warnings == [])
        }
    }
}

private actor Driver {
    func advance(_ scheduler: TestScheduler, to deadline: TestScheduler.Clock.Instant) async {
        await scheduler.clock.advance(to: deadline)
    }
}
