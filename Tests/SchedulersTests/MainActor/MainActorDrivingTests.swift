import Foundation
@testable import Schedulers
import Testing
import TestSupport

/// The asynchronous drive (`clock.advance(by:)`, `advance(to:)`, `run()`) and the shapes around
/// the contract's: hops off and back onto the main actor, other actors, nesting, and many
/// main-actor tests interleaving in one process.
@Suite(.ownThread, .timeLimit(.minutes(5))) struct MainActorDrivingTests {
    @MainActor @Test func runDrivesUntilNothingIsPending() async {
        let scheduler = TestScheduler()
        var log: [Double] = []
        await scheduler.withCapturedTasks {
            Task {
                for _ in 0..<3 {
                    try? await scheduler.clock.sleep(for: .seconds(2))
                    log.append(scheduler.now.timeIntervalSinceReferenceDate)
                }
            }
            await scheduler.clock.run()
        }
        #expect(log == [2, 4, 6])
        #expect(scheduler.pendingCount == 0)
        #expect(scheduler.now == Date(timeIntervalSinceReferenceDate: 6))
    }

    @MainActor @Test func runStopsAtALiveRepeatingAction() async {
        let scheduler = TestScheduler()
        let ticks = Locked(0)
        let timer = scheduler.schedule(after: .seconds(1), repeatingEvery: .seconds(1)) { ticks.withLock { $0 += 1 } }
        var done = false
        scheduler.schedule(afterDelay: 3.5) { MainActor.assumeIsolated { done = true } }
        let (_, warnings) = await Warning.capture(about: scheduler) { await scheduler.clock.run() }
        #expect(warnings.count == 1)
        #expect(warnings.first?.contains("1 live repeating action(s)") == true)
        #expect(done)
        #expect(ticks.value == 3)
        #expect(scheduler.pendingCount == 1)
        timer?.dispose()
    }

    @MainActor @Test func advanceToADeadline() async {
        let scheduler = TestScheduler()
        let model = SearchModel(clock: scheduler.clock)
        let start = scheduler.clock.now
        await scheduler.withCapturedTasks {
            model.queryChanged("s")
            await scheduler.clock.advance(to: start.advanced(by: .milliseconds(299)))
            #expect(model.results == [])
            await scheduler.clock.advance(to: start.advanced(by: .milliseconds(300)))
            #expect(model.results == ["s"])
            // A deadline in the past runs what is due now and leaves time alone.
            await scheduler.clock.advance(to: start)
            #expect(scheduler.clock.now == start.advanced(by: .milliseconds(300)))
        }
    }

    /// A main-actor task that hops off the main actor (a nonisolated fetch) and back, and a
    /// detached task that hops onto the main actor: both stay in virtual time.
    @MainActor @Test func hopsOffAndOntoTheMainActorStayInVirtualTime() {
        for _ in 0..<100 {
            let scheduler = TestScheduler()
            let log = Locked<[String]>([])
            scheduler.withCapturedTasks {
                Task {
                    let value = await fetch(after: .seconds(1), on: scheduler.clock)
                    MainActor.assertIsolated()
                    log.withLock { $0.append("main \(value) at \(scheduler.now.timeIntervalSinceReferenceDate)") }
                }
                Task.detached {
                    try? await scheduler.clock.sleep(for: .seconds(2))
                    await MainActor.run {
                        MainActor.assertIsolated()
                        log.withLock { $0.append("detached at \(scheduler.now.timeIntervalSinceReferenceDate)") }
                    }
                }
                scheduler.advance(by: 0.999)
                #expect(log.value == [])
                scheduler.advance(by: 0.001)
                #expect(log.value == ["main 42 at 1.0"])
                scheduler.advance(by: 1)
                #expect(log.value == ["main 42 at 1.0", "detached at 2.0"])
                #expect(scheduler.pendingCount == 0)
            }
        }
    }

    /// A default actor called from captured main-actor work runs within the same drive.
    @MainActor @Test func aDefaultActorRunsWithinTheDrive() {
        let scheduler = TestScheduler()
        let counter = Counter()
        var seen: [Int] = []
        scheduler.withCapturedTasks {
            Task {
                try? await scheduler.clock.sleep(for: .seconds(1))
                seen.append(await counter.increment())
                try? await scheduler.clock.sleep(for: .seconds(1))
                seen.append(await counter.increment())
            }
            scheduler.advance(by: 1)
            #expect(seen == [1])
            scheduler.advance(by: 1)
            #expect(seen == [1, 2])
        }
    }

    /// Nested captures: the innermost scheduler takes the main-actor tasks started inside it.
    @MainActor @Test func theInnermostCaptureWins() {
        let outer = TestScheduler()
        let inner = TestScheduler()
        var log: [String] = []
        outer.withCapturedTasks {
            Task { log.append("outer") }
            inner.withCapturedTasks {
                _ = Task { log.append("inner") }
            }
            #expect(outer.pendingCount == 1)
            #expect(inner.pendingCount == 1)
            inner.advance(by: 0)
            #expect(log == ["inner"])
            outer.advance(by: 0)
            #expect(log == ["inner", "outer"])
        }
    }

    /// Many asynchronous main-actor tests interleave on the main actor while each captures:
    /// none takes another's tasks, none takes the test runner's.
    @MainActor @Test(arguments: 0..<16) func interleavingMainActorTestsStayApart(index: Int) async {
        let scheduler = TestScheduler()
        // Sixteen bodies share the main actor: beside a busy .ci/run one can wait seconds for it
        // with its debounce pending later, which the help for a body waiting on time would name.
        scheduler.waitWarningDelay = .seconds(60)
        let model = SearchModel(clock: scheduler.clock)
        await scheduler.withCapturedTasks {
            for round in 0..<20 {
                model.queryChanged("\(index)-\(round)")
                await Task.yield()
                await scheduler.clock.advance(by: .milliseconds(299))
                #expect(model.results == (round == 0 ? [] : ["\(index)-\(round - 1)"]))
                await scheduler.clock.advance(by: .milliseconds(1))
                #expect(model.results == ["\(index)-\(round)"])
            }
        }
    }

    /// Once its test is over, a scheduler takes nothing: main-actor tasks started later run on
    /// the real main actor.
    @MainActor @Test func aFinishedCaptureTakesNothing() async {
        do {
            let scheduler = TestScheduler()
            scheduler.withCapturedTasks { scheduler.advance(by: 0) }
        }
        let task = Task { 7 }
        #expect(await task.value == 7)
    }
}

/// A nonisolated fetch: hops off the main actor, sleeps on the clock, comes back with a value.
private nonisolated func fetch(after delay: Duration, on clock: TestScheduler.Clock) async -> Int {
    try? await clock.sleep(for: delay)
    return 42
}

private actor Counter {
    private var value = 0
    func increment() -> Int {
        value += 1
        return value
    }
}
