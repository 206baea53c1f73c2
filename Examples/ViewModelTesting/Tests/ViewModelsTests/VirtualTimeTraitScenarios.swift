import Foundation
import SchedulersTestSupport
import Testing
import ViewModels

/// The one-annotation form: each of a thousand cases runs in a virtual world of its own
/// (`.virtualTime`) and must be exact in every one: view models that call `Task.sleep`
/// directly, and ones that sleep on the clock they are given (the test's scheduler's,
/// `TestScheduler.capturing`).
///
/// One case at a time, beside the package's other tests: an automatically advancing capture
/// still holds its thread while anything is pending, and a thousand of them at once beside the
/// other scenarios starved the cooperative pool on 2 cores beside a busy core (cases and other
/// tests past their 5-minute limit). The root package's ParallelWorldsTests keeps 200 cases in
/// parallel.
@Suite(.serialized, .timeLimit(.minutes(5)), .virtualTime) struct VirtualTimeTraitScenarios {
    @MainActor @Test(arguments: 0..<Repetition.runs) func refreshesAfterAPause(run: Int) async throws {
        let model = RefreshModel(load: { ["a", "b"] })
        let start = ContinuousClock.now
        model.refresh()
        try await Task.sleep(for: .milliseconds(200))
        model.refresh()   // restarts the 300 ms
        try await Task.sleep(for: .milliseconds(299))
        #expect(model.items == [] && model.loads == 0)
        try await Task.sleep(for: .milliseconds(1))
        #expect(model.items == ["a", "b"] && model.loads == 1)
        #expect(start.duration(to: .now) == .milliseconds(500))
    }

    /// A retry client whose backoff sleeps on the real clock: 1, 2 and 4 s, exactly.
    @Test(arguments: 0..<Repetition.runs) func retriesWithBackoff(run: Int) async throws {
        let backend = TimeNotInjectedScenarios.Flaky(failures: 3)
        let client = RetryClient { try await backend.call() }
        let start = ContinuousClock.now
        #expect(try await client.fetch() == 42)
        #expect(await backend.calls == 4)
        #expect(start.duration(to: .now) == .seconds(7))
    }

    /// Automatic advance: the test sleeps on the scheduler's clock, and sees what happened by then.
    @MainActor @Test(arguments: 0..<Repetition.runs) func toastHidesItself(run: Int) async throws {
        let clock = try #require(TestScheduler.capturing).clock
        let toast = Toast(clock: clock)
        toast.show("Saved")
        try await clock.sleep(for: .milliseconds(1_999))
        #expect(toast.message == "Saved")
        try await clock.sleep(for: .milliseconds(1))
        #expect(toast.message == nil)
    }

    /// Driven by hand: `.manually`, an async-algorithms debounce on the scheduler's clock.
    @MainActor @Test(.virtualTime(advancing: .manually), arguments: 0..<Repetition.runs)
    func searchDebounces(run: Int) async throws {
        let scheduler = try #require(TestScheduler.capturing)
        let model = SearchModel(clock: scheduler.clock, catalogue: ["swift", "swiftui", "rust"])
        model.queryChanged("s")
        await scheduler.clock.advance(by: .milliseconds(100))
        model.queryChanged("swift")
        await scheduler.clock.advance(by: .milliseconds(299))
        #expect(model.searches == 0)
        await scheduler.clock.advance(by: .milliseconds(1))
        #expect(model.results == ["swift", "swiftui"] && model.searches == 1)
        model.close()
        await scheduler.clock.run()
    }
}
