import Foundation
import MiniSignal
import Schedulers
import XCTest

final class IntervalAndSequenceTests: XCTestCase {
    let test = TestScheduler()

    func testIntervalTicksEveryIntervalOfVirtualTimeUntilDisposed() {
        let recorder = Recorder<Int>()
        let subscription = Signal.interval(1, on: test, leeway: 0.1).observe { [test] event in
            recorder.record("\(Recorder<Int>.describe(event))@\(test.now.timeIntervalSinceReferenceDate)")
        }
        test.advance(by: 3.5)
        XCTAssertEqual(recorder.events, ["1@1.0", "2@2.0", "3@3.0"])
        subscription.dispose()
        XCTAssertEqual(test.pendingCount, 0)
    }

    func testIntervalTicksOnAQueueScheduler() {
        let queue = TargetQueueScheduler(name: "interval")
        let recorder = Recorder<Int>(["queue": queue])
        let start = Date()
        let subscription = Signal.interval(0.01, on: queue).observe(recorder.handler)
        XCTAssertTrue(waitUntil { recorder.events.count >= 3 })
        subscription.dispose()
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(start), 0.03)
        XCTAssertEqual(Array(recorder.events.prefix(3)), ["1", "2", "3"])
        XCTAssertTrue(recorder.all.allSatisfy { $0.scheduler == "queue" })
    }

    func testSequenceSendsOneElementPerScheduledAction() {
        let recorder = Recorder<Int>(["test": test])
        Signal.sequence(1...3, on: test).observe(recorder.handler)
        XCTAssertEqual(recorder.events, [])
        test.step()
        XCTAssertEqual(recorder.events, ["1"])
        test.step()
        XCTAssertEqual(recorder.events, ["1", "2"])
        test.stepAll()
        XCTAssertEqual(recorder.events, ["1", "2", "3", "completed"])
        XCTAssertTrue(recorder.all.allSatisfy { $0.scheduler == "test" })
    }

    func testDisposingStopsTheSequenceBeforeItsNextElement() {
        let recorder = Recorder<Int>()
        let subscription = Signal.sequence(1...1_000, on: test).observe(recorder.handler)
        test.step(2)
        subscription.dispose()
        test.stepAll()
        XCTAssertEqual(recorder.events, ["1", "2"])
    }

    /// Polls `condition`, spinning the run loop, until it holds or `timeout` passes (a failure
    /// bound, not a timing assertion).
    func waitUntil(timeout: TimeInterval = 10, _ condition: () -> Bool) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while !condition() {
            if Date() > deadline { return false }
            _ = RunLoop.current.run(mode: .default, before: Date(timeIntervalSinceNow: 0.001))
        }
        return true
    }
}
