import Foundation
@testable import Schedulers
import XCTest

/// A run loop spun inside a synchronous capture (XCTest's waits, `RunLoopBlocker`) leaves alone
/// the main-actor work the body did not start: it runs on the real main actor, as without the
/// capture. (XCTest on Linux runs test methods on the main thread, where the run loop drains
/// the main queue; the methods enter the main actor with `MainActor.assumeIsolated`.)
final class RunLoopInCaptureXCTests: XCTestCase {
    /// An expectation fulfilled from a main-actor task queued before the capture.
    func testAnExpectationFulfilledByAnEarlierMainActorTask() {
        MainActor.assumeIsolated {
            for _ in 0..<20 {
                let scheduler = TestScheduler()
                let fulfilled = XCTestExpectation(description: "fulfilled on the main actor")
                Task { @MainActor in
                    await Task.yield()
                    fulfilled.fulfill()
                }
                scheduler.withCapturedTasks {
                    XCTAssertEqual(XCTWaiter().wait(for: [fulfilled], timeout: 10), .completed)
                }
                XCTAssertEqual(scheduler.pendingCount, 0)
            }
        }
    }

    /// A main-actor task started before the capture finishes while the body blocks on a run loop.
    func testAnEarlierMainActorTaskFinishesDuringRunLoopBlocker() throws {
        try MainActor.assumeIsolated {
            for _ in 0..<20 {
                let scheduler = TestScheduler()
                let finished = Flag()
                Task { @MainActor in
                    await Task.yield()
                    await Task.yield()
                    finished.set()
                }
                try scheduler.withCapturedTasks {
                    try RunLoopBlocker.wait(timeout: 10) { done in finished.onSet(done) }
                }
                XCTAssertTrue(finished.isSet)
            }
        }
    }

    /// A task the body starts is still captured: it waits for the test to advance.
    func testATaskTheBodyStartsIsStillCaptured() {
        MainActor.assumeIsolated {
            let scheduler = TestScheduler()
            let model = SearchModel(clock: scheduler.clock)
            scheduler.withCapturedTasks {
                model.queryChanged("s")
                RunLoop.main.run(until: Date().addingTimeInterval(0.05))
                XCTAssertEqual(model.results, [])
                scheduler.advance(by: 0.3)
                XCTAssertEqual(model.results, ["s"])
            }
        }
    }
}

/// Set once; calls what waits for it (at once if already set).
private final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    private var waiter: (@Sendable () -> Void)?
    var isSet: Bool { lock.withLock { value } }

    func set() {
        let pending = lock.withLock { () -> (@Sendable () -> Void)? in
            value = true
            return waiter
        }
        pending?()
    }

    func onSet(_ action: @escaping @Sendable () -> Void) {
        let isSet = lock.withLock { () -> Bool in
            if !value { waiter = action }
            return value
        }
        if isSet { action() }
    }
}
