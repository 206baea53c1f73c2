import Foundation
import Schedulers
import Testing
import TestSupport

// The "Testing with virtual time" article's examples of reports (TestingWithVirtualTime.md,
// "What a test is told"): a test that expects one, and `UnimplementedScheduler`.

/// A cache that loads on a scheduler only when it misses.
final class ExampleCache: Sendable {
    let scheduler: Scheduler
    let values: [String: String]

    init(scheduler: Scheduler, values: [String: String]) {
        self.scheduler = scheduler
        self.values = values
    }

    func value(for key: String) -> String? {
        if let value = values[key] { return value }
        scheduler.schedule { /* load it */ }
        return nil
    }
}

@Suite(.ownThread, .timeLimit(.minutes(5))) struct ReportsExamples {
    // snippet: unimplemented-scheduler
    @Test func aCacheHitSchedulesNothing() {
        let scheduler = UnimplementedScheduler("cache hit")
        let cache = ExampleCache(scheduler: scheduler, values: ["k": "v"])
        // Any use of the scheduler in value(for:) fails this test.
        #expect(cache.value(for: "k") == "v")
    }
    // snippet: end

    /// The miss schedules: the scheduler's report is the expected issue.
    @Test func aCacheMissFailsTheTest() {
        // snippet: expected-report
        let scheduler = UnimplementedScheduler("cache hit")
        let cache = ExampleCache(scheduler: scheduler, values: [:])
        withKnownIssue {
            _ = cache.value(for: "k")
        } matching: { issue in
            issue.comments.first?.rawValue.contains("schedule(_:)") == true
        }
        // snippet: end
    }

    @Test func aTestThatTriggersAWarningOnPurpose() {
        // snippet: expected-warnings
        let scheduler = TestScheduler()
        let (_, warnings) = scheduler.withExpectedWarnings {
            scheduler.withCapturedTasks {
                Task { @MainActor in }    // a main-actor job…
                scheduler.advance(by: 0)  // …driven off the main actor
            }
        }
        #expect(warnings.count == 1)
        // snippet: end
    }
}
