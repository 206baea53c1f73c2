import Foundation
@testable import Schedulers
import Testing
import TestSupport

/// A model isolated to an `actor` that starts tasks and sleeps on the injected clock: a search
/// engine that debounces queries. Exact from a nonisolated test and from a `@MainActor` test,
/// with calls back to back or with advances between them.
actor SearchEngine {
    private(set) var results: [String] = []
    private(set) var searches = 0
    private var search: Task<Void, Never>?
    private let clock: any Clock<Duration>

    init(clock: any Clock<Duration>) { self.clock = clock }

    func queryChanged(_ query: String) {
        search?.cancel()
        search = Task {  // inherits the actor
            do { try await clock.sleep(for: .milliseconds(300)) } catch { return }
            searches += 1
            results = [query]
        }
    }
}

@Suite(.ownThread, .timeLimit(.minutes(5))) struct ActorModelTests {
    static let runs = stressCount(200)

    @Test func backToBackFromANonisolatedTest() async {
        for _ in 0..<Self.runs { await Self.backToBack() }
    }

    @Test func advancesBetweenCallsFromANonisolatedTest() async {
        for _ in 0..<Self.runs { await Self.advancesBetweenCalls() }
    }

    @MainActor @Test func backToBackFromAMainActorTest() async {
        for _ in 0..<Self.runs { await Self.backToBack() }
    }

    @MainActor @Test func advancesBetweenCallsFromAMainActorTest() async {
        for _ in 0..<Self.runs { await Self.advancesBetweenCalls() }
    }

    /// Two queries back to back, then the debounce interval: only the second is searched.
    /// On the caller's actor, so each test runs it from the isolation it names.
    static func backToBack(isolation: isolated (any Actor)? = #isolation) async {
        let scheduler = TestScheduler()
        let engine = SearchEngine(clock: scheduler.clock)
        await scheduler.withCapturedTasks {
            await engine.queryChanged("s")
            await engine.queryChanged("sw")
            await expectSearched(engine, on: scheduler)
        }
    }

    /// A query, 200 ms, another query, then the debounce interval.
    static func advancesBetweenCalls(isolation: isolated (any Actor)? = #isolation) async {
        let scheduler = TestScheduler()
        let engine = SearchEngine(clock: scheduler.clock)
        await scheduler.withCapturedTasks {
            await engine.queryChanged("s")
            await scheduler.clock.advance(by: .milliseconds(200))
            await engine.queryChanged("sw")
            await expectSearched(engine, on: scheduler)
        }
    }

    /// Nothing at 299 ms after the last query; "sw", searched once, at 300 ms.
    static func expectSearched(
        _ engine: SearchEngine, on scheduler: TestScheduler, isolation: isolated (any Actor)? = #isolation
    ) async {
        await scheduler.clock.advance(by: .milliseconds(299))
        #expect(await engine.results == [])
        await scheduler.clock.advance(by: .milliseconds(1))
        #expect(await engine.results == ["sw"])
        #expect(await engine.searches == 1)
    }
}
