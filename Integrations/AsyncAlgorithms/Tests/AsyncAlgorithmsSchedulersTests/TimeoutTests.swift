import Schedulers
import Testing

extension Scenarios {
    /// A timeout written with a task group: the operation races a sleep on the clock, and the
    /// loser is cancelled. The group's child tasks run on the scheduler too.
    @Suite struct Timeout {
        struct TimedOut: Error {}

        static func withTimeout(
            _ seconds: Double, on scheduler: TestScheduler, _ operation: @escaping @Sendable () async throws -> String
        ) async throws -> String {
            try await withThrowingTaskGroup(of: String.self) { group in
                group.addTask { try await operation() }
                group.addTask {
                    try await Task.sleep(for: .seconds(seconds), clock: scheduler.clock)
                    throw TimedOut()
                }
                defer { group.cancelAll() }
                return try await group.next()!
            }
        }

        @Test(arguments: Load.allCases) func theFasterSideWins(_ load: Load) async {
            let outcome = await repeatScenario(load) { scheduler in
                let log = Locked<[Event]>([])
                for (operation, timeout) in [(0.75, 1.0), (2.0, 1.5)] {
                    Task {
                        do {
                            let value = try await Self.withTimeout(timeout, on: scheduler) {
                                try await Task.sleep(for: .seconds(operation), clock: scheduler.clock)
                                return "done \(operation)"
                            }
                            scheduler.record(value, in: log)
                        } catch {
                            scheduler.record("timed out \(timeout)", in: log)
                        }
                    }
                }
                scheduler.run(until: 10)
                return mismatch(log, [Event("done 0.75", at: 0.75), Event("timed out 1.5", at: 1.5)])
            }
            #expect(outcome.failures == 0, "\(outcome.examples)")
            #expect(outcome.busyProgressed)
        }
    }
}
