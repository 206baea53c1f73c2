import Foundation
@testable import Schedulers
import XCTest

/// A run loop spun inside a synchronous capture leaves alone what the body did not start,
/// whatever starts it: here a main-queue block queued before the capture, which the body's run
/// loop drains and which then starts a main-actor task. (XCTest on Linux runs test methods on
/// the main thread, where the run loop drains the main queue.)
final class RunLoopBorderXCTests: XCTestCase {
    /// Drained by `XCTWaiter`: the task it starts fulfils the expectation on the real main actor.
    func testABlockQueuedBeforeTheCaptureDrainedByXCTWaiter() {
        MainActor.assumeIsolated {
            for _ in 0..<20 {
                let scheduler = TestScheduler()
                let fulfilled = XCTestExpectation(description: "fulfilled on the main actor")
                DispatchQueue.main.async {
                    Task { @MainActor in fulfilled.fulfill() }
                }
                scheduler.withCapturedTasks {
                    XCTAssertEqual(XCTWaiter().wait(for: [fulfilled], timeout: 10), .completed)
                }
                XCTAssertEqual(scheduler.pendingCount, 0)
            }
        }
    }

    /// Drained by `RunLoopBlocker`.
    func testABlockQueuedBeforeTheCaptureDrainedByRunLoopBlocker() throws {
        try MainActor.assumeIsolated {
            for _ in 0..<20 {
                let scheduler = TestScheduler()
                let finished = Locked(false)
                DispatchQueue.main.async {
                    Task { @MainActor in
                        await Task.yield()
                        finished.withLock { $0 = true }
                    }
                }
                try scheduler.withCapturedTasks {
                    try RunLoopBlocker.wait(timeout: 10) { done in
                        Thread.detachNewThread {
                            while !finished.value { usleep(100) }
                            done()
                        }
                    }
                }
                XCTAssertTrue(finished.value)
                XCTAssertEqual(scheduler.pendingCount, 0)
            }
        }
    }
}
