import Foundation
import Schedulers
import XCTest

/// `@MainActor` code under test in XCTest, in the two forms XCTest on Linux can discover
/// (Platform notes, "XCTest and the main actor on Linux"): a nonisolated synchronous method that
/// enters the main actor with `MainActor.assumeIsolated` (XCTest runs test methods on the main
/// thread, which holds the main actor), and an `async` method marked `@MainActor`.
///
/// SwiftPM lists a class's tests in an array literal whose type is inferred from its methods.
/// If every method of this class were a synchronous `@MainActor` one (or the class were
/// `@MainActor`), that type would be `(MainActorXCTests) -> @MainActor () -> ()`, which XCTest
/// converts at run time, and the cast aborts the whole XCTest run before any test starts ("Could
/// not cast value of type …"). A synchronous `@MainActor` method beside nonisolated synchronous
/// ones does not compile in the generated list at all. An `async` method's entry has a fixed,
/// nonisolated type, so the `async` form is always discovered. The class stays nonisolated and
/// its synchronous method unmarked, so that adding or removing a method here cannot change that.
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

    /// The asynchronous shape, in the `async` `@MainActor` form: discovered on Linux whatever
    /// else the class holds, and run on the main actor.
    @MainActor func testDebounceIsExactInAnAsyncMainActorMethod() async {
        for _ in 0..<200 {
            let scheduler = TestScheduler()
            let model = SearchModel(clock: scheduler.clock)
            await scheduler.withCapturedTasks {
                model.queryChanged("s")
                await scheduler.clock.advance(by: .milliseconds(299))
                XCTAssertEqual(model.results, [])
                await scheduler.clock.advance(by: .milliseconds(1))
                XCTAssertEqual(model.results, ["s"])
                XCTAssertEqual(model.searches, 1)
            }
        }
    }
}
