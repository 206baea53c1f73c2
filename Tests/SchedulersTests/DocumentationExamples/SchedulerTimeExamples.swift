import Foundation
import Schedulers
import Testing
import TestSupport

// The "Writing your own scheduler" article's examples of a subclass's time
// (WritingYourOwnScheduler.md): `Scheduler.now` and the overridable `Duration` forms of
// `schedule(after:)`.

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

@Suite(.ownThread, .timeLimit(.minutes(5))) struct SchedulerTimeExamples {
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
