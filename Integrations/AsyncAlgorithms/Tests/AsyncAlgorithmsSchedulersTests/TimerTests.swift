import AsyncAlgorithms
import Schedulers
import Testing

extension Scenarios {
    /// `AsyncTimerSequence` on the scheduler's clock, alone and combined: `merge`, `zip` and
    /// `combineLatest` consume their bases in tasks of their own.
    @Suite struct Timers {
        private static func timer(_ seconds: Double, _ scheduler: TestScheduler) -> AsyncTimerSequence<TestScheduler.Clock> {
            AsyncTimerSequence(interval: .seconds(seconds), clock: scheduler.clock)
        }

        @Test(arguments: Load.allCases) func timerSequence(_ load: Load) async {
            let outcome = await repeatScenario(load) { scheduler in
                let log = Locked<[Event]>([])
                Task {
                    for await instant in Self.timer(1.5, scheduler).prefix(3) {
                        scheduler.record(instant.date.timeIntervalSinceReferenceDate, in: log)
                    }
                }
                scheduler.run(until: 4)
                if log.value.count != 2 { return "by 4: \(log.value)" }
                scheduler.run(until: 10)
                return mismatch(log, [Event(1.5, at: 1.5), Event(3.0, at: 3), Event(4.5, at: 4.5)])
            }
            #expect(outcome.failures == 0, "\(outcome.examples)")
            #expect(outcome.busyProgressed)
        }

        @Test(arguments: Load.allCases) func mergeOfTimers(_ load: Load) async {
            let outcome = await repeatScenario(load) { scheduler in
                let log = Locked<[Event]>([])
                Task {
                    let a = Self.timer(2, scheduler).prefix(3).map { _ in "a" }
                    let b = Self.timer(2.5, scheduler).prefix(2).map { _ in "b" }
                    for await label in merge(a, b) { scheduler.record(label, in: log) }
                    scheduler.record("end", in: log)
                }
                scheduler.run(until: 20)
                return mismatch(
                    log, [Event("a", at: 2), Event("b", at: 2.5), Event("a", at: 4), Event("b", at: 5),
                          Event("a", at: 6), Event("end", at: 6)])
            }
            #expect(outcome.failures == 0, "\(outcome.examples)")
            #expect(outcome.busyProgressed)
        }

        @Test(arguments: Load.allCases) func zipOfTimers(_ load: Load) async {
            let outcome = await repeatScenario(load) { scheduler in
                let log = Locked<[Event]>([])
                Task {
                    let a = Self.timer(2, scheduler).prefix(3)
                    let b = Self.timer(3.5, scheduler).prefix(3)
                    for await (x, y) in zip(a, b) {
                        let pair = "\(x.date.timeIntervalSinceReferenceDate)+\(y.date.timeIntervalSinceReferenceDate)"
                        scheduler.record(pair, in: log)
                    }
                    scheduler.record("end", in: log)
                }
                scheduler.run(until: 20)
                // zip asks each base for its next element only once the pair before is taken:
                // a's third tick, due at 6, is asked for at 7, so the timer reports 7.
                return mismatch(
                    log, [Event("2.0+3.5", at: 3.5), Event("4.0+7.0", at: 7), Event("7.0+10.5", at: 10.5),
                          Event("end", at: 10.5)])
            }
            #expect(outcome.failures == 0, "\(outcome.examples)")
            #expect(outcome.busyProgressed)
        }

        @Test(arguments: Load.allCases) func combineLatestOfTimers(_ load: Load) async {
            let outcome = await repeatScenario(load) { scheduler in
                let log = Locked<[Event]>([])
                Task {
                    let a = Self.timer(2, scheduler).prefix(3)
                    let b = Self.timer(3.5, scheduler).prefix(2)
                    for await (x, y) in combineLatest(a, b) {
                        let pair = "\(x.date.timeIntervalSinceReferenceDate)+\(y.date.timeIntervalSinceReferenceDate)"
                        scheduler.record(pair, in: log)
                    }
                    scheduler.record("end", in: log)
                }
                scheduler.run(until: 20)
                return mismatch(
                    log, [Event("2.0+3.5", at: 3.5), Event("4.0+3.5", at: 4), Event("6.0+3.5", at: 6),
                          Event("6.0+7.0", at: 7), Event("end", at: 7)])
            }
            #expect(outcome.failures == 0, "\(outcome.examples)")
            #expect(outcome.busyProgressed)
        }
    }
}
