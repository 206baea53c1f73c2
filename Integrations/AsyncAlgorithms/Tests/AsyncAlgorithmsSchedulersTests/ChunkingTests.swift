import AsyncAlgorithms
import Schedulers
import Testing

extension Scenarios {
    /// `chunked(by: .repeating(every:clock:))`: the values gathered in each second, emitted on
    /// the timer's tick (a tick with nothing gathered emits nothing).
    @Suite struct Chunking {
        @Test(arguments: Load.allCases) func chunksPerTimerTick(_ load: Load) async {
            let outcome = await repeatScenario(load) { scheduler in
                let (stream, input) = AsyncStream.makeStream(of: Int.self)
                let log = Locked<[Event]>([])
                Task {
                    let ticks = AsyncTimerSequence.repeating(every: .seconds(1), clock: scheduler.clock)
                    for await chunk in stream.chunked(by: ticks) {
                        scheduler.record(chunk.map(String.init).joined(separator: ","), in: log)
                    }
                    scheduler.record("end", in: log)
                }
                for (value, time) in zip(1..., [0.25, 0.5, 1.25, 3.5, 3.75]) {
                    scheduler.run(until: time)
                    input.yield(value)
                }
                scheduler.run(until: 4.5)
                input.finish()
                scheduler.run(until: 10)
                // Nothing at 3 (an empty second); the stream's end flushes 4,5 at once.
                return mismatch(
                    log, [Event("1,2", at: 1), Event("3", at: 2), Event("4,5", at: 4), Event("end", at: 4.5)])
            }
            #expect(outcome.failures == 0, "\(outcome.examples)")
            #expect(outcome.busyProgressed)
        }
    }
}
