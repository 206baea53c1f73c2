import Foundation
import SchedulersTestSupport
import Testing
import ViewModels

/// The one-annotation form: each of a thousand cases runs in a virtual world of its own
/// (`.virtualTime`), in parallel with the others, and must be exact in every one. The view
/// models sleep on the clock they are given, the test's scheduler's (`TestScheduler.capturing`).
@Suite(.timeLimit(.minutes(5)), .virtualTime) struct VirtualTimeTraitScenarios {
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
