import AsyncAlgorithms
import Dispatch
import Foundation
import SchedulersTestSupport
import Testing
import ViewModels

/// Code that meets Dispatch, with no clock injected, each scenario a thousand cases in a world
/// of its own (`.virtualTime`): a completion handler on a global queue (at once, or after an
/// `asyncAfter` of 20 ms), an async-algorithms `debounce` on the default `ContinuousClock`, and
/// an `AsyncStream` fed by a `DispatchSourceTimer` raced against a timeout. Every case must be
/// exact, with no report. One case at a time, as `VirtualTimeTraitScenarios` says why.
@Suite(.serialized, .timeLimit(.minutes(5)), .virtualTime) struct DispatchScenarios {
    static let catalogue = ["swift", "swiftui", "rust"]

    @MainActor @Test(arguments: 0..<Repetition.runs) func aCompletionHandlerAnswersAtOnce(run: Int) async throws {
        let model = LegacySearchModel(client: LegacyCatalogueClient(catalogue: Self.catalogue))
        let start = ContinuousClock.now
        model.queryChanged("s")
        try await Task.sleep(for: .milliseconds(100))
        model.queryChanged("swift")
        try await Task.sleep(for: .milliseconds(299))
        #expect(model.searches == 0)
        try await Task.sleep(for: .milliseconds(1))
        #expect(model.results == ["swift", "swiftui"] && model.searches == 1)
        #expect(start.duration(to: .now) == .milliseconds(400))
    }

    @MainActor @Test(.virtualTime(advancing: .manually), arguments: 0..<Repetition.runs)
    func aCompletionHandlerAfter20Milliseconds(run: Int) async throws {
        let scheduler = try #require(TestScheduler.capturing)
        let client = LegacyCatalogueClient(catalogue: Self.catalogue, latency: .milliseconds(20))
        let model = LegacySearchModel(client: client)
        model.queryChanged("ru")
        await scheduler.clock.advance(by: .milliseconds(319))
        #expect(model.searches == 0)
        await scheduler.clock.advance(by: .milliseconds(1))
        #expect(model.results == ["rust"] && model.searches == 1)
    }

    /// swift-async-algorithms' `debounce(for:)` on `ContinuousClock`, the clock nobody injected.
    @MainActor @Test(arguments: 0..<Repetition.runs) func aDebounceOnTheContinuousClock(run: Int) async throws {
        let model = SearchModel(clock: ContinuousClock(), catalogue: Self.catalogue)
        defer { model.close() }
        model.queryChanged("s")
        try await Task.sleep(for: .milliseconds(100))
        model.queryChanged("swift")
        try await Task.sleep(for: .milliseconds(299))
        #expect(model.searches == 0)
        try await Task.sleep(for: .milliseconds(1))
        #expect(model.results == ["swift", "swiftui"] && model.searches == 1)
    }

    /// Three ticks of a timer source every 100 ms beat a timeout of 350 ms, and take 300 ms.
    @Test(arguments: 0..<Repetition.runs) func aTimerSourceStreamBeatsItsTimeout(run: Int) async throws {
        let start = ContinuousClock.now
        let (stream, continuation) = AsyncStream.makeStream(of: ContinuousClock.Instant.self)
        let timer = DispatchSource.makeTimerSource(queue: .global())
        timer.setEventHandler { continuation.yield(.now) }
        timer.schedule(deadline: .now() + .milliseconds(100), repeating: .milliseconds(100))
        timer.resume()
        defer { timer.cancel() }
        let ticks = try await withThrowingTaskGroup(of: [Duration]?.self) { group in
            group.addTask {
                var ticks: [Duration] = []
                for await tick in stream {
                    ticks.append(start.duration(to: tick))
                    if ticks.count == 3 { break }
                }
                return ticks
            }
            group.addTask {
                try await Task.sleep(for: .milliseconds(350))
                return nil
            }
            let first = try await group.next() ?? nil
            group.cancelAll()
            return first
        }
        #expect(ticks == [.milliseconds(100), .milliseconds(200), .milliseconds(300)])
        #expect(start.duration(to: .now) == .milliseconds(300))
    }
}
