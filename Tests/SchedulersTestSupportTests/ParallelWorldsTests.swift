import Foundation
import SchedulersTestSupport
import Testing
import TestSupport

// Parallel tests stay apart: eight `.virtualTime` suites of a hundred cases each, run in
// parallel in one process (Swift Testing's default), each case sleeping for durations of its
// own in its body and in tasks it starts. Each must see its own scheduler from every task, time
// moving by exactly its own sleeps, and no report. The sleeps are on the scheduler's clock and on
// the real clocks (`Task.sleep`, `ContinuousClock`), whose readings inside a world are its
// virtual time.

enum ParallelWorld {
    static func check(suite: Int, case index: Int) async throws {
        let scheduler = try #require(TestScheduler.capturing)
        #expect(scheduler.now == Date(timeIntervalSinceReferenceDate: 0))
        // Different durations in every case: a sleep of another world's would show here.
        let step = Duration.milliseconds(1 + suite * 100 + index)
        let clock = scheduler.clock
        let worker = Task {
            var seen: [TestScheduler?] = []
            for round in 0..<3 {
                // The scheduler's clock, then both real clocks, un-injected.
                switch round {
                case 0: try await clock.sleep(for: step)
                case 1: try await Task.sleep(for: step)
                default: try await ContinuousClock().sleep(until: .now + step)
                }
                seen.append(TestScheduler.capturing)
            }
            return seen
        }
        let onMain = Task { @MainActor in
            try await Task.sleep(for: step * 2)
            return TestScheduler.capturing
        }
        let start = ContinuousClock.now
        try await clock.sleep(for: step)
        #expect(start.duration(to: .now) == step)
        #expect(TestScheduler.capturing === scheduler)
        let seen = try await worker.value
        #expect(seen.count == 3 && seen.allSatisfy { $0 === scheduler })
        #expect(try await onMain.value === scheduler)
        let elapsed = Date(timeIntervalSinceReferenceDate: 0).duration(to: scheduler.now)
        #expect(elapsed == step * 3, "suite \(suite), case \(index)")
    }
}

extension Date {
    fileprivate func duration(to other: Date) -> Duration {
        let from = TestScheduler.Clock.Instant(date: self)
        return from.duration(to: TestScheduler.Clock.Instant(date: other))
    }
}

@Suite(.ownThread, .timeLimit(.minutes(5)), .virtualTime) struct ParallelWorlds0 {
    @Test(arguments: 0..<100) func staysInItsOwnWorld(index: Int) async throws {
        try await ParallelWorld.check(suite: 0, case: index)
    }
}

@Suite(.ownThread, .timeLimit(.minutes(5)), .virtualTime) struct ParallelWorlds1 {
    @Test(arguments: 0..<100) func staysInItsOwnWorld(index: Int) async throws {
        try await ParallelWorld.check(suite: 1, case: index)
    }
}

@Suite(.ownThread, .timeLimit(.minutes(5)), .virtualTime) struct ParallelWorlds2 {
    @Test(arguments: 0..<100) func staysInItsOwnWorld(index: Int) async throws {
        try await ParallelWorld.check(suite: 2, case: index)
    }
}

@Suite(.ownThread, .timeLimit(.minutes(5)), .virtualTime) struct ParallelWorlds3 {
    @Test(arguments: 0..<100) func staysInItsOwnWorld(index: Int) async throws {
        try await ParallelWorld.check(suite: 3, case: index)
    }
}

@Suite(.ownThread, .timeLimit(.minutes(5)), .virtualTime) struct ParallelWorlds4 {
    @Test(arguments: 0..<100) func staysInItsOwnWorld(index: Int) async throws {
        try await ParallelWorld.check(suite: 4, case: index)
    }
}

@Suite(.ownThread, .timeLimit(.minutes(5)), .virtualTime) struct ParallelWorlds5 {
    @Test(arguments: 0..<100) func staysInItsOwnWorld(index: Int) async throws {
        try await ParallelWorld.check(suite: 5, case: index)
    }
}

@Suite(.ownThread, .timeLimit(.minutes(5)), .virtualTime) struct ParallelWorlds6 {
    @Test(arguments: 0..<100) func staysInItsOwnWorld(index: Int) async throws {
        try await ParallelWorld.check(suite: 6, case: index)
    }
}

@Suite(.ownThread, .timeLimit(.minutes(5)), .virtualTime) struct ParallelWorlds7 {
    @Test(arguments: 0..<100) func staysInItsOwnWorld(index: Int) async throws {
        try await ParallelWorld.check(suite: 7, case: index)
    }
}
