import XCTest

/// The synchronous shape in XCTest. On Linux XCTest discovers a synchronous `@MainActor` test
/// method only beside an `async` one in the same class (Platform notes, "XCTest and the main
/// actor on Linux"), so each nonisolated method enters the main actor with
/// `MainActor.assumeIsolated` (XCTest runs test methods on the main thread, which holds the main
/// actor).
final class ViewModelXCTests: XCTestCase {
    private func check(_ scenario: @MainActor () -> Bool) {
        MainActor.assumeIsolated {
            XCTAssertEqual(Repetition.wrongRuns(busy: false, scenario), 0, "quiet")
            XCTAssertEqual(Repetition.wrongRuns(busy: true, scenario), 0, "beside busy tasks")
        }
    }

    func testSearchDebounces() { check(SynchronousScenarios.search) }
    func testToastHidesItself() { check(SynchronousScenarios.toast) }
    func testRetriesWithExponentialBackoff() { check(SynchronousScenarios.retryWithBackoff) }
    func testPollsOffTheMainActor() { check(SynchronousScenarios.polling) }
    func testTimesOut() { check(SynchronousScenarios.timeout) }
}
