import Schedulers
import Testing

extension Scenarios {
    /// What most tests write: a plain `Task {}` or a `Task.detached`, sleeping on the clock.
    @Suite struct PlainTasks {
        @Test(arguments: Load.allCases) func plainTask(_ load: Load) async {
            let outcome = await repeatScenario(load) { scheduler in
                let log = Locked<[Event]>([])
                Task {
                    for step in 1...3 {
                        try await Task.sleep(for: .seconds(1.5), clock: scheduler.clock)
                        scheduler.record(step, in: log)
                    }
                }
                scheduler.run(until: 2.9)
                if log.value != [Event(1, at: 1.5)] { return "by 2.9: \(log.value)" }
                scheduler.run(until: 10)
                return mismatch(log, [Event(1, at: 1.5), Event(2, at: 3), Event(3, at: 4.5)])
            }
            #expect(outcome.failures == 0, "\(outcome.examples)")
            #expect(outcome.busyProgressed)
        }

        @Test(arguments: Load.allCases) func detachedTask(_ load: Load) async {
            let outcome = await repeatScenario(load) { scheduler in
                let log = Locked<[Event]>([])
                Task.detached {
                    try await scheduler.sleep(for: .seconds(2))
                    scheduler.record("slept", in: log)
                    try await Task.sleep(until: .init(date: .init(timeIntervalSinceReferenceDate: 2.5)), clock: scheduler.clock)
                    scheduler.record("woke", in: log)
                }
                scheduler.run(until: 1.999)
                if !log.value.isEmpty { return "by 1.999: \(log.value)" }
                scheduler.run(until: 10)
                return mismatch(log, [Event("slept", at: 2), Event("woke", at: 2.5)])
            }
            #expect(outcome.failures == 0, "\(outcome.examples)")
            #expect(outcome.busyProgressed)
        }
    }
}
