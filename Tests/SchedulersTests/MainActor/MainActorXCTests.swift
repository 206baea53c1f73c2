import Foundation
import Schedulers
import XCTest

/// The synchronous shape in XCTest: on Linux XCTest cannot discover a `@MainActor` test method,
/// so a nonisolated method enters the main actor with `MainActor.assumeIsolated` (its test
/// methods run on the main thread, which holds the main actor).
final class MainActorXCTests: XCTestCase {
    func testDebounceIsExactOnTheMainActor() {
        MainActor.assumeIsolated {
            for _ in 0..<200 {
                let scheduler = TestScheduler()
                let model = SearchModel(clock: scheduler.clock)
                scheduler.withCapturedTasks {
                    model.queryChanged("s")
                    scheduler.advance(by: 0.2)
                    model.queryChanged("sw")
                    scheduler.advance(by: 0.299)
                    XCTAssertEqual(model.results, [])
                    scheduler.advance(by: 0.001)
                    XCTAssertEqual(model.results, ["sw"])
                    XCTAssertEqual(model.searches, 1)
                }
            }
        }
    }
}
