import Testing
import ViewModels

/// Every scenario, both shapes, 1,000 runs quiet and 1,000 beside busy unrelated tasks: no wrong
/// run is allowed.
@Suite(.timeLimit(.minutes(5))) struct ViewModelTests {
    @MainActor @Test(arguments: [false, true]) func searchDebounces(busy: Bool) async {
        #expect(Repetition.wrongRuns(busy: busy, SynchronousScenarios.search) == 0)
        #expect(await Repetition.wrongRuns(busy: busy, AsynchronousScenarios.search) == 0)
    }

    @MainActor @Test(arguments: [false, true]) func toastHidesItself(busy: Bool) async {
        #expect(Repetition.wrongRuns(busy: busy, SynchronousScenarios.toast) == 0)
        #expect(await Repetition.wrongRuns(busy: busy, AsynchronousScenarios.toast) == 0)
    }

    @MainActor @Test(arguments: [false, true]) func retriesWithExponentialBackoff(busy: Bool) async {
        #expect(Repetition.wrongRuns(busy: busy, SynchronousScenarios.retryWithBackoff) == 0)
        #expect(await Repetition.wrongRuns(busy: busy, AsynchronousScenarios.retryWithBackoff) == 0)
    }

    @MainActor @Test(arguments: [false, true]) func pollsOffTheMainActor(busy: Bool) async {
        #expect(Repetition.wrongRuns(busy: busy, SynchronousScenarios.polling) == 0)
        #expect(await Repetition.wrongRuns(busy: busy, AsynchronousScenarios.polling) == 0)
    }

    @MainActor @Test(arguments: [false, true]) func timesOut(busy: Bool) async {
        #expect(Repetition.wrongRuns(busy: busy, SynchronousScenarios.timeout) == 0)
        #expect(await Repetition.wrongRuns(busy: busy, AsynchronousScenarios.timeout) == 0)
    }

    /// Tests moved from `TestClock`, waiting for what they start: exact, and they never hang.
    @MainActor @Test(arguments: [false, true]) func clockHabitsNeverHang(busy: Bool) async {
        #expect(await Repetition.wrongRuns(busy: busy, ClockHabitScenarios.startsThenSleeps) == 0)
        #expect(await Repetition.wrongRuns(busy: busy, ClockHabitScenarios.asyncLetAndStream) == 0)
        #expect(await Repetition.wrongRuns(busy: busy, ClockHabitScenarios.actorModel) == 0)
    }

    /// Code that injects no clock (Linux, Swift 6.3 and later): a view model calling
    /// `Task.sleep(for:)`, and a retry client on `Task.sleep(nanoseconds:)` tested with
    /// automatic advance. Inside the capture the real clocks read virtual time, so each sleep
    /// ends exactly at `now + d`: no wrong run is allowed here either.
    @MainActor @Test(arguments: [false, true]) func codeThatInjectsNoClock(busy: Bool) async {
        #if compiler(>=6.3) && os(Linux)
            #expect(await Repetition.wrongRuns(busy: busy, TimeNotInjectedScenarios.refreshAfterAPause) == 0)
            #expect(await Repetition.wrongRuns(busy: busy, TimeNotInjectedScenarios.retryWithAutomaticAdvance) == 0)
            #expect(await Repetition.wrongRuns(busy: busy, TimeNotInjectedScenarios.giveUpWithAutomaticAdvance) == 0)
        #endif
    }
}
