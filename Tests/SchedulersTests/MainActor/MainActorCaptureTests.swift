import Foundation
import Schedulers
import Testing
import TestSupport

/// `@MainActor` code under test in virtual time: the contract's two shapes, each run many times
/// in a row, so that a shape that is exact only usually fails here.
@Suite(.ownThread, .timeLimit(.minutes(5))) struct MainActorCaptureTests {
    @MainActor @Test func synchronousShapeIsExact() {
        for _ in 0..<200 {
            let scheduler = TestScheduler()
            let model = SearchModel(clock: scheduler.clock)
            scheduler.withCapturedTasks {
                model.queryChanged("s")
                scheduler.advance(by: 0.2)
                model.queryChanged("sw")
                scheduler.advance(by: 0.299)
                #expect(model.results == [])
                scheduler.advance(by: 0.001)
                #expect(model.results == ["sw"])
                #expect(model.searches == 1)
                #expect(scheduler.pendingCount == 0)
            }
        }
    }

    @MainActor @Test(.timeLimit(.minutes(5))) func asynchronousShapeIsExact() async {
        for _ in 0..<200 {
            let scheduler = TestScheduler()
            let model = SearchModel(clock: scheduler.clock)
            await scheduler.withCapturedTasks {
                model.queryChanged("s")
                await scheduler.clock.advance(by: .milliseconds(299))
                #expect(model.results == [])
                await scheduler.clock.advance(by: .milliseconds(1))
                #expect(model.results == ["s"])
            }
        }
    }

    /// Driven from a nonisolated test: the clock's advance hops to the main actor for each
    /// captured main-actor job.
    @Test(.timeLimit(.minutes(5))) func asynchronousShapeFromANonisolatedTestIsExact() async {
        for _ in 0..<100 {
            let scheduler = TestScheduler()
            let model = await SearchModel(clock: scheduler.clock)
            await scheduler.withCapturedTasks {
                await model.queryChanged("s")
                await scheduler.clock.advance(by: .milliseconds(299))
                #expect(await model.results == [])
                await scheduler.clock.advance(by: .milliseconds(1))
                #expect(await model.results == ["s"])
            }
        }
    }

    /// Main-actor jobs run at their virtual time: `now` reads the wake-up's time, and an action
    /// due later runs after them.
    @MainActor @Test func mainActorJobsRunAtTheirVirtualTime() {
        let scheduler = TestScheduler()
        var log: [String] = []
        scheduler.withCapturedTasks {
            Task {
                try? await scheduler.clock.sleep(for: .milliseconds(300))
                log.append("task at \(scheduler.now.timeIntervalSinceReferenceDate)")
            }
            scheduler.schedule(afterDelay: 0.3001) { MainActor.assumeIsolated { log.append("action") } }
            scheduler.advance(by: 1)
        }
        #expect(log == ["task at 0.3", "action"])
    }

    /// The test body itself is main-actor code the runtime still recognises as such.
    @MainActor @Test func theBodyStaysIsolatedToTheMainActor() {
        let scheduler = TestScheduler()
        scheduler.withCapturedTasks {
            MainActor.assertIsolated()
            let task = Task { MainActor.assertIsolated(); return 1 }
            scheduler.advance(by: 0)
            MainActor.assertIsolated()
            _ = task
        }
    }
}
