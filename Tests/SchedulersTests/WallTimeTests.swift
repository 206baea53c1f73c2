import Foundation
import Schedulers
import Testing
import TestSupport

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// `QueueScheduler.wallTime(with:)` on the dates that break a naive conversion (Platform notes, item 1),
/// and what the schedulers do with them.
@Suite(.ownThread, .timeLimit(.minutes(5))) struct WallTimeTests {
    /// One second after the epoch: where every date at or before it is clamped to.
    private static let firstSecond = DispatchWallTime(timespec: timespec(tv_sec: 1, tv_nsec: 0))

    @Test func normalDateMatchesItsTimespec() {
        let date = Date(timeIntervalSince1970: 1_700_000_000.25)
        let expected = DispatchWallTime(timespec: timespec(tv_sec: 1_700_000_000, tv_nsec: 250_000_000))
        #expect(QueueScheduler.wallTime(with: date) == expected)
    }

    @Test func wholeSecondDateMatchesItsTimespec() {
        let date = Date(timeIntervalSince1970: 2_000_000_000)
        let expected = DispatchWallTime(timespec: timespec(tv_sec: 2_000_000_000, tv_nsec: 0))
        #expect(QueueScheduler.wallTime(with: date) == expected)
    }

    @Test func nowLiesBetweenNowBeforeAndAfter() {
        // A Date is a Double of seconds since 2001: today that resolves ~120 ns, so the
        // converted "now" may sit a rounding step outside [before, after]. 1 µs of slack.
        let before = DispatchWallTime.now()
        let converted = QueueScheduler.wallTime(with: Date())
        let after = DispatchWallTime.now()
        #expect(before <= converted + .microseconds(1))
        #expect(converted <= after + .microseconds(1))
    }

    @Test func laterDatesGiveLaterTimes() {
        let now = Date()
        let earlier = QueueScheduler.wallTime(with: now)
        let later = QueueScheduler.wallTime(with: now.addingTimeInterval(60))
        #expect(earlier < later)
        #expect(later < .distantFuture)
    }

    @Test func nanIsNow() {
        let before = DispatchWallTime.now()
        let converted = QueueScheduler.wallTime(with: Date(timeIntervalSince1970: .nan))
        let after = DispatchWallTime.now()
        #expect(before <= converted)
        #expect(converted <= after)
    }

    @Test(arguments: [
        Double.infinity, Date.distantFuture.timeIntervalSince1970, 1e300, 9_223_372_035, 1e10,
        Double.greatestFiniteMagnitude,
    ])
    func farFutureIsDistantFuture(secondsSince1970: Double) {
        let date = Date(timeIntervalSince1970: secondsSince1970)
        #expect(QueueScheduler.wallTime(with: date) == .distantFuture)
    }

    /// Just below the limit a date is still an ordinary (finite) time.
    @Test func lastRepresentableSecondIsFinite() {
        let converted = QueueScheduler.wallTime(with: Date(timeIntervalSince1970: 9_223_372_034))
        #expect(converted < .distantFuture)
        #expect(converted > QueueScheduler.wallTime(with: Date()))
    }

    @Test(arguments: [
        -Double.infinity, Date.distantPast.timeIntervalSince1970, 0, 1e-9, 0.5, 0.999_999_999, -1e300,
    ])
    func atOrBeforeTheEpochIsTheFirstSecond(secondsSince1970: Double) {
        let date = Date(timeIntervalSince1970: secondsSince1970)
        let converted = QueueScheduler.wallTime(with: date)
        #expect(converted == Self.firstSecond)
        #expect(converted < .now())
    }

    @Test func firstSecondIsKept() {
        #expect(QueueScheduler.wallTime(with: Date(timeIntervalSince1970: 1)) == Self.firstSecond)
    }

    /// A date in the past fires promptly (not never, as a naive conversion of pre-epoch dates
    /// would make it), and so does NaN.
    @Test(arguments: [
        -Double.infinity, Date.distantPast.timeIntervalSince1970, 0, 1e-9,
        Date().timeIntervalSince1970 - 3600, Double.nan,
    ])
    func pastDateFiresPromptly(secondsSince1970: Double) {
        let date = Date(timeIntervalSince1970: secondsSince1970)
        let scheduler = TargetQueueScheduler(name: "walltime.past")
        let ran = Locked(false)
        let disposable = scheduler.schedule(after: date) { ran.withLock { $0 = true } }
        #expect(disposable != nil)
        #expect(waitUntil { ran.value })
    }

    @Test(arguments: [Date.distantPast.timeIntervalSince1970, 0, Double.nan])
    func repeatingTimerFromAPastDateStartsPromptly(secondsSince1970: Double) {
        let date = Date(timeIntervalSince1970: secondsSince1970)
        let scheduler = TargetQueueScheduler(name: "walltime.past.repeating")
        let ticks = Locked(0)
        let disposable = scheduler.schedule(after: date, repeatingEvery: 0.01) { ticks.withLock { $0 += 1 } }
        #expect(waitUntil { ticks.value >= 2 })
        disposable?.dispose()
    }

    /// Far-future dates neither trap nor fire, and can be disposed.
    @Test(arguments: [
        Double.infinity, Date.distantFuture.timeIntervalSince1970, 1e300,
    ])
    func farFutureDateIsPendingUntilDisposed(secondsSince1970: Double) {
        let date = Date(timeIntervalSince1970: secondsSince1970)
        let scheduler = TargetQueueScheduler(name: "walltime.future")
        var token: Token? = Token()
        let weak = Weak(token!)
        let oneShot = scheduler.schedule(after: date) { [token] in
            _ = token
            Issue.record("a far-future action ran")
        }
        let repeating = scheduler.schedule(after: date, repeatingEvery: 1) { [token] in
            _ = token
            Issue.record("a far-future timer ticked")
        }
        token = nil
        #expect(oneShot?.isDisposed == false)
        #expect(repeating?.isDisposed == false)
        oneShot?.dispose()
        repeating?.dispose()
        #expect(weak.object == nil)
    }

    @Test func hugeDelayDoesNotTrap() {
        let scheduler = TargetQueueScheduler(name: "walltime.delay")
        let disposable = scheduler.schedule(afterDelay: 1e300) { Issue.record("a 1e300 s delay fired") }
        #expect(disposable?.isDisposed == false)
        disposable?.dispose()
    }
}
