import AsyncAlgorithms
import Schedulers
import Testing

extension Scenarios {
    /// `_throttle(for:clock:latest:)`, which reads the clock in the consuming task and sleeps
    /// there before the last value.
    @Suite struct Throttle {
        @Test(arguments: Load.allCases) func latestValuePerInterval(_ load: Load) async {
            let outcome = await repeatScenario(load) { scheduler in
                let (stream, input) = AsyncStream.makeStream(of: Int.self)
                let log = Locked<[Event]>([])
                Task {
                    for await value in stream._throttle(for: .seconds(1), clock: scheduler.clock, latest: true) {
                        scheduler.record(value, in: log)
                    }
                    scheduler.record("end", in: log)
                }
                for (value, time) in zip(1..., [0, 0.25, 0.5, 1.25, 1.5, 2.5, 2.75]) {
                    scheduler.run(until: time)
                    input.yield(value)
                }
                scheduler.run(until: 3)
                input.finish()
                scheduler.run(until: 10)
                // 1 at once; 2 and 3 fold into 4, a second later; 5 into 6; 7 waits out the
                // interval after 6 although the stream finished at 3.
                return mismatch(
                    log, [Event(1, at: 0), Event(4, at: 1.25), Event(6, at: 2.5), Event(7, at: 3.5), Event("end", at: 3.5)])
            }
            #expect(outcome.failures == 0, "\(outcome.examples)")
            #expect(outcome.busyProgressed)
        }
    }
}
