#if compiler(>=6.3) && os(Linux)  // where a real-clock sleep sleeps in virtual time
import AsyncAlgorithms
import Schedulers
import Testing

extension Scenarios {
    /// `AsyncTimerSequence` on the real `.continuous` clock, inside a capture: each tick sleeps
    /// until `last + interval` on the real clock, and ticks at 1, 2, 3 s of virtual time (a
    /// delay read against the real `now` of each sleep would make it 1, 3, 6 s).
    @Suite struct ContinuousTimers {
        @Test(arguments: Load.allCases) func ticksAtOneTwoThreeSeconds(_ load: Load) async {
            let outcome = await repeatScenario(load) { scheduler in
                let log = Locked<[Event]>([])
                Task {
                    let timer = AsyncTimerSequence(interval: .seconds(1), clock: .continuous)
                    for await _ in timer.prefix(3) {
                        scheduler.record("tick", in: log)
                    }
                    scheduler.record("end", in: log)
                }
                scheduler.run(until: 0.999)
                if !log.value.isEmpty { return "by 0.999: \(log.value)" }
                scheduler.run(until: 10)
                return mismatch(log, [
                    Event("tick", at: 1), Event("tick", at: 2), Event("tick", at: 3), Event("end", at: 3),
                ])
            }
            // Every tick's deadline is read from the world's virtual `now`, the first one too:
            // no run may miss, quiet or busy.
            #expect(outcome.failures == 0, "\(outcome.examples)")
            #expect(outcome.busyProgressed)
        }
    }
}
#endif
