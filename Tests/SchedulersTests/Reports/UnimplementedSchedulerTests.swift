import Foundation
@testable import Schedulers
import Testing
import TestSupport
import XCTest

/// `UnimplementedScheduler`: every use is a failure of the running test naming the call and the
/// description, and runs nothing; reading `now` is not a use.
@Suite(.ownThread, .timeLimit(.minutes(5))) struct UnimplementedSchedulerTests {
    @Test func everyScheduleFormIsReportedAndRunsNothing() {
        let scheduler = UnimplementedScheduler("cache hit")
        let ran = Locked(0)
        let action: @Sendable () -> Void = { ran.withLock { $0 += 1 } }
        let (results, warnings) = Warning.capture(about: scheduler) {
            [
                scheduler.schedule(action),
                scheduler.schedule(after: Date(), action),
                scheduler.schedule(afterDelay: 1, action),
                scheduler.schedule(after: Date(), repeatingEvery: 1, action),
                scheduler.schedule(after: .seconds(1), action),
                scheduler.schedule(after: .seconds(1), repeatingEvery: .seconds(1), action),
                scheduler.scheduleRecursive { _ in action() },
            ]
        }
        #expect(results.allSatisfy { $0 == nil })
        #expect(ran.value == 0)
        let calls = [
            "schedule(_:)", "schedule(after:_:) with a Date", "schedule(afterDelay:_:)",
            "schedule(after:repeatingEvery:withLeeway:_:)", "schedule(after:_:) with a Duration",
            "schedule(after:repeatingEvery:leeway:_:)", "scheduleRecursive(_:)",
        ]
        #expect(warnings.count == calls.count)
        for (warning, call) in zip(warnings, calls) {
            #expect(warning.hasPrefix(
                "Schedulers warning: UnimplementedScheduler \"cache hit\" was used: \(call) was called and ran nothing;"))
            #expect(warning.contains("It was made at SchedulersTests/UnimplementedSchedulerTests.swift:"))
        }
    }

    /// Every form releases its action before it returns, without running it.
    @Test func everyFormReleasesItsActionBeforeReturning() {
        let scheduler = UnimplementedScheduler()
        let forms: [(Token, UnimplementedScheduler) -> Void] = [
            { token, s in s.schedule { _ = token } },
            { token, s in s.schedule(after: Date()) { _ = token } },
            { token, s in s.schedule(afterDelay: 1) { _ = token } },
            { token, s in s.schedule(after: Date(), repeatingEvery: 1) { _ = token } },
            { token, s in s.schedule(after: .seconds(1)) { _ = token } },
            { token, s in s.schedule(after: .seconds(1), repeatingEvery: .seconds(1)) { _ = token } },
            { token, s in s.scheduleRecursive { _ in _ = token } },
        ]
        let (_, warnings) = Warning.capture(about: scheduler) {
            for form in forms {
                var token: Token? = Token()
                let weak = Weak(token!)
                form(token!, scheduler)
                token = nil
                #expect(weak.object == nil)
            }
        }
        #expect(warnings.count == forms.count)
    }

    @Test func readingNowIsNotAUse() {
        let scheduler = UnimplementedScheduler()
        let (_, warnings) = Warning.capture(about: scheduler) {
            _ = scheduler.now
            let clock = scheduler.clock
            #expect(clock.now == clock.now)  // it stands still
        }
        #expect(warnings.isEmpty)
    }

    @Test func everySleepIsReportedAndThrowsCancellationError() async {
        let scheduler = UnimplementedScheduler("no waiting")
        let (_, warnings) = await Warning.capture(about: scheduler) {
            await #expect(throws: CancellationError.self) { try await scheduler.clock.sleep(for: .seconds(1)) }
            await #expect(throws: CancellationError.self) {
                try await Task.sleep(for: .seconds(1), clock: scheduler.clock)
            }
            await #expect(throws: CancellationError.self) { try await scheduler.sleep(for: .seconds(1)) }
            await #expect(throws: CancellationError.self) { try await scheduler.sleep(until: .distantFuture) }
        }
        #expect(warnings.count == 4)
        #expect(warnings.prefix(2).allSatisfy {
            $0.hasPrefix("Schedulers warning: UnimplementedScheduler \"no waiting\" was used: clock.sleep was called")
        })
        #expect(warnings.dropFirst(2).allSatisfy { $0.contains("was used: schedule(after:_:) with a") })
    }

    @Test func aTimerOnItEndsWithoutATick() async {
        let scheduler = UnimplementedScheduler()
        let (ticks, warnings) = await Warning.capture(about: scheduler) {
            var ticks = 0
            for await _ in scheduler.timer(every: .seconds(1)) { ticks += 1 }
            return ticks
        }
        #expect(ticks == 0)
        #expect(warnings.count == 1)
    }

    // MARK: In the test frameworks

    @Test func itsUseFailsTheRunningSwiftTestingTest() {
        let line = #line + 1
        let scheduler = UnimplementedScheduler("fetch")
        withKnownIssue {
            scheduler.schedule(after: .seconds(1)) {}
        } matching: { issue in
            issue.severity == .error
                && issue.comments.first?.rawValue.hasPrefix(
                    "Schedulers warning: UnimplementedScheduler \"fetch\" was used: schedule(after:_:) with a Duration") == true
                && issue.sourceLocation?.line == line
                && issue.sourceLocation?.fileID == #fileID
        }
    }

    @Test func itsClocksSleepFailsTheRunningSwiftTestingTest() async throws {
        let scheduler = UnimplementedScheduler("debounce")
        try await withKnownIssue {
            try await scheduler.clock.sleep(for: .seconds(1))
        } matching: { issue in
            // The sleep's CancellationError is the second issue.
            issue.comments.first?.rawValue.contains("\"debounce\" was used: clock.sleep") == true
                || issue.error is CancellationError
        }
    }

    @Test func itsUseFailsTheRunningXCTestCase() async {
        let run = await ReportingTestCase.run {
            UnimplementedScheduler("fetch").schedule {}
        }
        #expect(run.failureCount == 1)
        #expect(run.failures.first?.contains(
            "Schedulers warning: UnimplementedScheduler \"fetch\" was used: schedule(_:) was called and ran nothing") == true)
    }
}
