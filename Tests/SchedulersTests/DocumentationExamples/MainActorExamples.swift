import Foundation
import Schedulers
import Testing
import TestSupport

// The "Testing with virtual time" article's lead example (TestingWithVirtualTime.md): a
// `@MainActor` view model that debounces on an injected clock, tested synchronously and
// asynchronously on the main actor. Each test runs its shape many times in a row, so a shape
// that is exact only usually fails here.

@Suite(.ownThread, .timeLimit(.minutes(5))) struct MainActorExamples {
    // The article's model. It is nested so that its name can be the one an app would use
    // (the module's own tests have a SearchModel of their own).
    // snippet: main-actor-search-model
    @MainActor final class SearchModel {
        var results: [String] = []
        private var search: Task<Void, Never>?
        private let clock: any Clock<Duration>

        init(clock: any Clock<Duration>) { self.clock = clock }

        func queryChanged(_ query: String) {
            search?.cancel()
            search = Task {              // inherits the main actor
                do {
                    try await clock.sleep(for: .milliseconds(300))
                } catch {
                    return   // a newer query cancelled it
                }
                results = [query]
            }
        }
    }
    // snippet: end

    @MainActor @Test func synchronousShapeIsExactEveryTime() {
        for _ in 0..<100 { debounces() }
    }

    @MainActor @Test func asynchronousShapeIsExactEveryTime() async {
        for _ in 0..<100 { await debouncesAsync() }
    }

    // snippet: main-actor-sync-test
    @MainActor @Test func debounces() {
        let scheduler = TestScheduler()
        let model = SearchModel(clock: scheduler.clock)
        scheduler.withCapturedTasks {
            model.queryChanged("s")
            scheduler.advance(by: 0.2)
            model.queryChanged("sw")
            scheduler.advance(by: 0.299)
            #expect(model.results == [])
            scheduler.advance(by: 0.001)
            #expect(model.results == ["sw"])   // 300 ms after "sw"
        }
    }
    // snippet: end

    // snippet: main-actor-async-test
    @MainActor @Test func debouncesAsync() async {
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
    // snippet: end

    /// The article's claim that the elapsed virtual time is exact in `Duration`s: a thousand
    /// steps of a millisecond are one second, to the attosecond.
    @Test func elapsedTimeIsExact() {
        let scheduler = TestScheduler()
        // snippet: main-actor-exact-duration
        let start = scheduler.clock.now
        for _ in 0..<1_000 {
            scheduler.advance(by: .milliseconds(1))
        }
        #expect(start.duration(to: scheduler.clock.now) == .seconds(1))
        // snippet: end
    }
}
