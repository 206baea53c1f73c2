import Foundation
import Schedulers
import Testing
import TestSupport

// The article examples that use API added in turn 2 (API.md, "Turn 2 additions"):
// `Scheduler.now`, the overridable `Duration` forms of `schedule(after:)`, and
// `TestScheduler.withCapturedTasks(_:)`.
// Articles: TestingWithVirtualTime.md, WritingYourOwnScheduler.md.

// MARK: Writing your own scheduler: `now` and the `Duration` forms

/// `CountingScheduler` (WritingYourOwnSchedulerExamples.swift) tells time by its base, so every
/// default that counts "from now" counts in the base's time: virtual time over a TestScheduler.
final class CountingSchedulerWithTime: Scheduler, @unchecked Sendable {
    let base: Scheduler
    let inner: CountingScheduler

    init(base: Scheduler) {
        self.base = base
        inner = CountingScheduler(base: base)
        super.init(name: "counting with time")
    }

    // snippet: writing-now
    override var now: Date { base.now }
    // snippet: end
    override var storesPendingWork: Bool { inner.storesPendingWork }

    @discardableResult
    override func schedule(_ action: @escaping @Sendable () -> Void) -> (any Disposable)? {
        inner.schedule(action)
    }

    @discardableResult
    override func schedule(after date: Date, _ action: @escaping @Sendable () -> Void) -> (any Disposable)? {
        inner.schedule(after: date, action)
    }

    @discardableResult
    override func schedule(
        after date: Date, repeatingEvery interval: TimeInterval, withLeeway leeway: TimeInterval = 0,
        _ action: @escaping @Sendable () -> Void
    ) -> (any Disposable)? {
        inner.schedule(after: date, repeatingEvery: interval, withLeeway: leeway, action)
    }

    /// A `Duration` delay goes to the base's own `Duration` form: on a queue scheduler that is
    /// the monotonic clock, which the Date-based default (counting from `now`) would not be.
    // snippet: writing-duration-override
    @discardableResult
    override func schedule(
        after delay: Duration, _ action: @escaping @Sendable () -> Void
    ) -> (any Disposable)? {
        base.schedule(after: delay) { [weak self] in
            self?.performAsCurrentScheduler(action)
        }
    }
    // snippet: end
}

@Suite struct Turn2WritingYourOwnSchedulerExamples {
    /// With `now` overridden, `schedule(afterDelay:)` and the repeating `Duration` form (both
    /// inherited) count from the base's virtual time, not from the wall clock.
    @Test func inheritedDefaultsCountFromNow() {
        let test = TestScheduler()
        let scheduler = CountingSchedulerWithTime(base: test)
        nonisolated(unsafe) var log: [TimeInterval] = []
        scheduler.schedule(afterDelay: 5) { log.append(test.now.timeIntervalSinceReferenceDate) }
        let timer = scheduler.schedule(after: .seconds(1), repeatingEvery: .seconds(3)) {
            log.append(test.now.timeIntervalSinceReferenceDate)
        }
        test.advance(by: 7)
        timer?.dispose()
        #expect(log == [1, 4, 5, 7])
        #expect(scheduler.now == test.now)
    }

    /// The overridden `Duration` form is the one that runs.
    @Test func anOverriddenDurationFormIsCalled() {
        let test = TestScheduler()
        let scheduler: Scheduler = CountingSchedulerWithTime(base: test)
        nonisolated(unsafe) var current: Scheduler?
        scheduler.schedule(after: .seconds(2)) { current = Scheduler.current }
        test.advance(by: 2)
        #expect(current === scheduler)
    }

    /// A scheduler that stores pending work is not kept alive by it.
    @Test func storesPendingWorkFollowsTheBase() {
        #expect(CountingSchedulerWithTime(base: TestScheduler()).storesPendingWork)
        #expect(!CountingSchedulerWithTime(base: Scheduler.immediate).storesPendingWork)
    }
}

// MARK: Testing with virtual time: captured tasks

@Suite struct Turn2VirtualTimeExamples {
    /// A plain `Task {}` started inside `withCapturedTasks` runs only when the scheduler is
    /// driven, on the driving thread, so a sleep on its clock is exact.
    @Test func capturedPlainTasksRunInVirtualTime() {
        let scheduler = TestScheduler()
        nonisolated(unsafe) var done = false
        scheduler.withCapturedTasks {
            Task {
                try await Task.sleep(for: .seconds(5), clock: scheduler.clock)
                done = true
            }
            scheduler.advance(by: 4.999)
            #expect(!done)
            scheduler.advance(by: 0.001)
            #expect(done)
        }
        #expect(scheduler.pendingCount == 0)
    }

    /// What library operators do inside (swift-async-algorithms' debounce starts unstructured
    /// tasks): a task started from a captured task is captured too.
    @Test func tasksStartedByCapturedTasksAreCaptured() {
        let scheduler = TestScheduler()
        nonisolated(unsafe) var log: [String] = []
        scheduler.withCapturedTasks {
            Task {
                Task.detached {
                    try await scheduler.sleep(for: .seconds(1))
                    log.append("inner")
                }
                log.append("outer")
            }
            scheduler.advance(by: 0)
            #expect(log == ["outer"])
            scheduler.advance(by: 1)
            #expect(log == ["outer", "inner"])
        }
    }
}

// The swift-async-algorithms example of TestingWithVirtualTime.md is a test of the package that
// depends on swift-async-algorithms: Integrations/AsyncAlgorithms/Tests/AsyncAlgorithmsSchedulersTests/DocumentationExampleTests.swift.
