import MiniSignal
import Schedulers
import XCTest

/// The semantics users trip on, shown in virtual time with two test schedulers.
///
/// XCTest rather than Swift Testing: its bodies run on the main thread, where
/// `Scheduler.current` is `Scheduler.main`, so `Scheduler.subscription` subscribes inline, as in
/// RAC's own tests. (From a Swift Testing worker thread it would subscribe on a background queue,
/// and these steps would no longer be deterministic.)
final class SubscribeOnDeliverOnTests: XCTestCase {
    let work = TestScheduler()
    let delivery = TestScheduler()

    /// A cold signal that records where its subscription work (its side effect) runs.
    func coldSignal(_ recorder: Recorder<Int>) -> Signal<Int> {
        Signal { observer in
            recorder.record("subscribed")
            observer.send(.value(1))
            observer.send(.completed)
            return nil
        }
    }

    func testSubscribeOnDecidesWhereWorkRunsAndDeliverOnWhereValuesArrive() {
        let recorder = Recorder<Int>(["work": work, "delivery": delivery])
        coldSignal(recorder).subscribe(on: work).deliver(on: delivery).observe(recorder.handler)
        XCTAssertEqual(recorder.all, [], "nothing runs until the work scheduler does")

        work.advance(by: 0)
        XCTAssertEqual(recorder.all, [.init(event: "subscribed", scheduler: "work")])

        delivery.advance(by: 0)
        XCTAssertEqual(
            recorder.all,
            [
                .init(event: "subscribed", scheduler: "work"),
                .init(event: "1", scheduler: "delivery"),
                .init(event: "completed", scheduler: "delivery"),
            ])
    }

    func testOnlyTheFirstSubscribeOnMatters() {
        let recorder = Recorder<Int>(["work": work, "delivery": delivery])
        coldSignal(recorder).subscribe(on: work).subscribe(on: delivery).observe(recorder.handler)

        delivery.advance(by: 0)
        XCTAssertEqual(recorder.all, [], "the outer subscribe(on:) only hops on to the inner one")

        work.advance(by: 0)
        XCTAssertEqual(
            recorder.all,
            [
                .init(event: "subscribed", scheduler: "work"),
                .init(event: "1", scheduler: "work"),
                .init(event: "completed", scheduler: "work"),
            ])
    }

    func testHotSourcesIgnoreSubscribeOn() {
        let pipe = Pipe<Int>()
        let recorder = Recorder<Int>(["work": work, "main": Scheduler.main])
        pipe.signal.subscribe(on: work).observe(recorder.handler)

        pipe.send(.value(1))
        XCTAssertEqual(recorder.events, [], "not yet subscribed: a hot source does not replay")

        work.advance(by: 0)
        pipe.send(.value(2))
        XCTAssertEqual(
            recorder.all, [.init(event: "2", scheduler: "main")],
            "arrives at once, on the sender's thread, not on the subscribe(on:) scheduler")

        pipe.send(.completed)
        XCTAssertEqual(recorder.events, ["2", "completed"])
    }

    func testDeliverOnMovesAHotSourcesEvents() {
        let pipe = Pipe<Int>()
        let recorder = Recorder<Int>(["delivery": delivery])
        let subscription = pipe.signal.deliver(on: delivery).observe(recorder.handler)
        pipe.send(.value(1))
        pipe.send(.value(2))
        XCTAssertEqual(recorder.all, [])
        delivery.advance(by: 0)
        XCTAssertEqual(recorder.all, [.init(event: "1", scheduler: "delivery"), .init(event: "2", scheduler: "delivery")])

        pipe.send(.value(3))
        subscription.dispose()
        delivery.advance(by: 0)
        XCTAssertEqual(recorder.events, ["1", "2"], "queued before disposal, dropped after it")
    }
}
