import Dispatch
import Foundation
import SchedulersTestSupport
import Testing
import TestSupport

/// Inside a world the real clocks read its virtual time (`ContinuousClock.now`,
/// `SuspendingClock.now`, `Date()`, `DispatchTime.now()`, `systemUptime`), so a real-clock
/// sleep's deadline is a virtual time: it wakes at exactly `now + d`, for every duration and
/// every form. Outside the world every reading is real.
@Suite(.ownThread, .timeLimit(.minutes(5))) struct VirtualReadingsTests {
    @Test(.virtualTime) func everyRealClockMovesExactlyWithVirtualTime() async throws {
        let scheduler = try #require(TestScheduler.capturing)
        let continuous = ContinuousClock.now
        let suspending = SuspendingClock.now
        let dispatch = DispatchTime.now()
        let uptime = ProcessInfo.processInfo.systemUptime
        #expect(Date() == scheduler.now)
        try await Task.sleep(for: .milliseconds(400))
        #expect(continuous.duration(to: .now) == .milliseconds(400))
        #expect(suspending.duration(to: .now) == .milliseconds(400))
        #expect(DispatchTime.now().uptimeNanoseconds - dispatch.uptimeNanoseconds == 400_000_000)
        #expect(abs(ProcessInfo.processInfo.systemUptime - uptime - 0.4) < 1e-9)
        #expect(Date() == Date(timeIntervalSinceReferenceDate: 0.4))
        #expect(Date() == scheduler.now)
    }

    // The contract's example: Date() is virtual too.
    @Test(.virtualTime(startDate: Date(timeIntervalSince1970: 1_700_000_000)))
    func tokenExpires() async throws {
        let issued = Date()                               // 2023-11-14 22:13:20 UTC, every run
        #expect(issued == Date(timeIntervalSince1970: 1_700_000_000))
        try await Task.sleep(for: .seconds(3_600))
        #expect(Date().timeIntervalSince(issued) == 3_600)
    }

    @Test func readingsOutsideEveryWorldAreReal() async throws {
        let scheduler = TestScheduler()
        let before = Date()
        let outside = await scheduler.withCapturedTasks {
            try? await Task.sleep(for: .seconds(3_600))
            // A thread of its own runs no work of the world: its readings are real.
            return await withCheckedContinuation { (reading: CheckedContinuation<Date, Never>) in
                Thread { reading.resume(returning: Date()) }.start()
            }
        }
        #expect(scheduler.now == Date(timeIntervalSinceReferenceDate: 3_600))
        #expect(outside >= before && outside.timeIntervalSince(before) < 600)
        #expect(Date().timeIntervalSince(before) < 600)
    }

    /// Every form of real-clock sleep, and durations from a nanosecond to a day, wake at exactly
    /// `now + d`.
    @Test(.virtualTime) func everySleepWakesAtExactlyItsDeadline() async throws {
        let durations: [Duration] = [
            .nanoseconds(1), .nanoseconds(999), .microseconds(7), .milliseconds(1), .milliseconds(7),
            .milliseconds(299), .seconds(1), .seconds(61), .seconds(3_600), .seconds(86_400),
        ]
        let clock = ContinuousClock()
        for duration in durations {
            var start = clock.now
            try await Task.sleep(for: duration)
            #expect(start.duration(to: clock.now) == duration, "Task.sleep(for: \(duration))")

            start = clock.now
            try await Task.sleep(nanoseconds: UInt64(duration / .nanoseconds(1)))
            #expect(start.duration(to: clock.now) == duration, "Task.sleep(nanoseconds:) of \(duration)")

            start = clock.now
            try await Task.sleep(until: start + duration, clock: .continuous)
            #expect(start.duration(to: clock.now) == duration, "Task.sleep(until:clock:) of \(duration)")

            start = clock.now
            try await clock.sleep(for: duration)
            #expect(start.duration(to: clock.now) == duration, "ContinuousClock.sleep(for:) of \(duration)")

            let suspending = SuspendingClock()
            let from = suspending.now
            try await suspending.sleep(for: duration)
            #expect(from.duration(to: suspending.now) == duration, "SuspendingClock.sleep(for:) of \(duration)")
        }
    }

    /// A deadline read before other work is kept exactly: the sleep ends at the deadline, not
    /// the deadline's distance after the sleep began.
    @Test(.virtualTime) func aDeadlineReadBeforeOtherWorkIsExact() async throws {
        let start = ContinuousClock.now
        let deadline = start + .milliseconds(100)
        try await Task.sleep(for: .milliseconds(30))    // other work that takes virtual time
        await Task.yield()
        try await Task.sleep(until: deadline, clock: .continuous)
        #expect(start.duration(to: .now) == .milliseconds(100))
    }
}
