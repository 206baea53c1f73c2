import Foundation
import MiniSignal
import Schedulers
import XCTest

/// delay, throttle, timeout and buffer in virtual time. XCTest for the main thread's inline
/// subscription (see SubscribeOnDeliverOnTests).
final class TimeOperatorTests: XCTestCase {
    let test = TestScheduler()

    /// Records each event with the virtual second it arrived at.
    func timed<Value>(_ recorder: Recorder<Value>) -> @Sendable (Event<Value>) -> Void {
        { [test] event in recorder.record("\(Recorder<Value>.describe(event))@\(test.now.timeIntervalSinceReferenceDate)") }
    }

    func testDelayShiftsValuesAndCompletion() {
        let recorder = Recorder<Int>()
        Signal.just(1, 2).delay(2, on: test).observe(timed(recorder))
        test.advance(by: 1.999)
        XCTAssertEqual(recorder.events, [])
        test.advance(by: 0.001)
        XCTAssertEqual(recorder.events, ["1@2.0", "2@2.0", "completed@2.0"])
    }

    func testDisposingCancelsPendingDelayedValues() {
        let recorder = Recorder<Int>()
        let subscription = Signal.just(1).delay(2, on: test).observe(recorder.handler)
        XCTAssertEqual(test.pendingCount, 2)
        subscription.dispose()
        XCTAssertEqual(test.pendingCount, 0)
    }

    func testThrottleSendsTheLastValueAfterAQuietInterval() {
        let pipe = Pipe<Int>()
        let recorder = Recorder<Int>()
        pipe.signal.throttle(1, on: test).observe(timed(recorder))
        pipe.send(.value(1))
        test.advance(by: 0.5)
        pipe.send(.value(2))
        test.advance(by: 1)
        pipe.send(.value(3))
        pipe.send(.completed)
        XCTAssertEqual(recorder.events, ["2@1.5", "3@1.5", "completed@1.5"])
        XCTAssertEqual(test.pendingCount, 0)
    }

    func testTimeoutFailsASignalThatDoesNotTerminateInTime() {
        let pipe = Pipe<Int>()
        let recorder = Recorder<Int>()
        pipe.signal.timeout(2, on: test).observe(timed(recorder))
        test.advance(by: 1)
        pipe.send(.value(1))
        test.advance(by: 1)
        pipe.send(.value(2))
        XCTAssertEqual(recorder.events, ["1@1.0", "failed(TimeoutError)@2.0"])
    }

    func testTimeoutIsCancelledWhenTheSignalTerminatesFirst() {
        let recorder = Recorder<Int>()
        Signal.just(1).timeout(2, on: test).observe(recorder.handler)
        XCTAssertEqual(recorder.events, ["1", "completed"])
        XCTAssertEqual(test.pendingCount, 0)
    }

    func testBufferSendsBatchesOneIntervalAfterTheirFirstValue() {
        let pipe = Pipe<Int>()
        let recorder = Recorder<[Int]>()
        pipe.signal.buffer(time: 1, on: test).observe(timed(recorder))
        pipe.send(.value(1))
        test.advance(by: 0.5)
        pipe.send(.value(2))
        test.advance(by: 2)
        pipe.send(.value(3))
        pipe.send(.completed)
        XCTAssertEqual(recorder.events, ["[1, 2]@1.0", "[3]@2.5", "completed@2.5"])
        XCTAssertEqual(test.pendingCount, 0)
    }
}
