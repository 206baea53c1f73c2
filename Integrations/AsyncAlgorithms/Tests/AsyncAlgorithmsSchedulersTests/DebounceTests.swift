import AsyncAlgorithms
import Schedulers
import Testing

extension Scenarios {
    /// `debounce(for:clock:)`, which reads the clock and sleeps in tasks of its own.
    @Suite struct Debounce {
        /// The test yields into a stream; debounce emits after a second of quiet, and at once
        /// when the stream finishes while it waits.
        @Test(arguments: Load.allCases) func overAStream(_ load: Load) async {
            let outcome = await repeatScenario(load) { scheduler in
                let (stream, input) = AsyncStream.makeStream(of: Int.self)
                let log = Locked<[Event]>([])
                Task {
                    for await value in stream.debounce(for: .seconds(1), clock: scheduler.clock) {
                        scheduler.record(value, in: log)
                    }
                    scheduler.record("end", in: log)
                }
                scheduler.run(until: 0)
                input.yield(1)
                scheduler.run(until: 0.25)
                input.yield(2)
                scheduler.run(until: 1.5)
                input.yield(3)
                scheduler.run(until: 2)
                input.yield(4)
                scheduler.run(until: 3.25)
                input.yield(5)
                scheduler.run(until: 3.5)
                input.finish()
                scheduler.run(until: 10)
                return mismatch(log, [Event(2, at: 1.25), Event(4, at: 3), Event(5, at: 3.5), Event("end", at: 3.5)])
            }
            #expect(outcome.failures == 0, "\(outcome.examples)")
            #expect(outcome.busyProgressed)
        }

        /// Six values sent into an `AsyncChannel` by a producer task that sleeps on the clock
        /// between them: the benchmark's scenario.
        @Test(arguments: Load.allCases) func overAChannelFedByASleepingProducer(_ load: Load) async {
            let outcome = await repeatScenario(load) { scheduler in
                let channel = AsyncChannel<Int>()
                let log = Locked<[Event]>([])
                Task {
                    for (value, gap) in zip(1..., [0.25, 0.25, 1.5, 0.5, 0.25, 2.0]) {
                        try await Task.sleep(for: .seconds(gap), clock: scheduler.clock)
                        await channel.send(value)
                    }
                    try await Task.sleep(for: .seconds(1.5), clock: scheduler.clock)
                    channel.finish()
                }
                Task {
                    for await value in channel.debounce(for: .seconds(1), clock: scheduler.clock) {
                        scheduler.record(value, in: log)
                    }
                    scheduler.record("end", in: log)
                }
                scheduler.run(until: 3.5)
                let early = log.value
                scheduler.run(until: 10)
                let expected = [Event(2, at: 1.5), Event(5, at: 3.75), Event(6, at: 5.75), Event("end", at: 6.25)]
                if early != [Event(2, at: 1.5)] { return "by 3.5: \(early)" }
                return mismatch(log, expected)
            }
            #expect(outcome.failures == 0, "\(outcome.examples)")
            #expect(outcome.busyProgressed)
        }
    }
}
