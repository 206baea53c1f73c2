import Foundation
import Schedulers
import Testing
import TestSupport

/// Extreme but valid input never traps, overflows or hangs: the oldest and farthest dates, delays
/// of 1e300 s and infinity, repeating intervals of 1 ns and 10 years, a million pending actions.
@Suite(.ownThread, .timeLimit(.minutes(5))) struct ExtremeInputTests {
    static let year: TimeInterval = 365 * 86_400

    static func queueSchedulers() -> [QueueScheduler] {
        [
            QueueScheduler(name: "extreme.serial", queue: DispatchQueue(label: "extreme.serial")),
            TargetQueueScheduler(name: "extreme.target", targetQueue: .global()),
        ]
    }

    /// Dates at or before 1970 (which Dispatch reads as "forever") mean "now": they run.
    @Test func pastDatesRunPromptlyOnQueueSchedulers() {
        let dates: [Date] = [
            .distantPast, Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: 1e-9),
            Date(timeIntervalSinceNow: -1e300), Date(timeIntervalSinceReferenceDate: -.infinity),
            Date(timeIntervalSinceReferenceDate: .nan),
        ]
        for scheduler in Self.queueSchedulers() {
            let ran = Locked(0)
            for date in dates {
                scheduler.schedule(after: date) { ran.withLock { $0 += 1 } }
            }
            for delay in [-1e300, -.infinity, .nan, 0] as [TimeInterval] {
                scheduler.schedule(afterDelay: delay) { ran.withLock { $0 += 1 } }
            }
            #expect(waitUntil(timeout: 30) { ran.value == dates.count + 4 }, "\(scheduler): ran \(ran.value)")
        }
    }

    /// Far-future dates are accepted, stay pending and can be disposed (releasing the closure).
    @Test func farFutureDatesStayPendingOnQueueSchedulers() {
        let dates: [Date] = [
            .distantFuture, Date(timeIntervalSinceNow: 1e300), Date(timeIntervalSinceReferenceDate: .infinity),
            Date(timeIntervalSinceReferenceDate: .greatestFiniteMagnitude), Date(timeIntervalSince1970: 9_223_372_036),
        ]
        for scheduler in Self.queueSchedulers() {
            let ran = Locked(0)
            var token: Token? = Token()
            let weak = Weak(token!)
            var disposables = dates.map { date in
                scheduler.schedule(after: date) { [token] in _ = token; ran.withLock { $0 += 1 } }!
            }
            disposables += [1e300, .infinity, .greatestFiniteMagnitude].map { delay in
                scheduler.schedule(afterDelay: delay) { [token] in _ = token; ran.withLock { $0 += 1 } }!
            }
            token = nil
            // Flush the queue: none of them is due, so none ran.
            let flushed = DispatchSemaphore(value: 0)
            scheduler.schedule { flushed.signal() }
            #expect(flushed.wait(timeout: .now() + 30) == .success)
            #expect(ran.value == 0)
            for disposable in disposables { disposable.dispose() }
            #expect(weak.object == nil)
        }
    }

    /// Huge intervals and leeways saturate instead of overflowing; the first tick still runs.
    @Test(arguments: [10 * 365 * 86_400, 1e300, .greatestFiniteMagnitude] as [TimeInterval])
    func hugeRepeatIntervalsTickOnceThenWait(interval: TimeInterval) {
        for scheduler in Self.queueSchedulers() {
            let ticks = Locked(0)
            let timer = scheduler.schedule(after: Date(), repeatingEvery: interval) { ticks.withLock { $0 += 1 } }
            #expect(waitUntil(timeout: 30) { ticks.value == 1 })
            timer!.dispose()
            #expect(ticks.value == 1)
        }
    }

    @Test(arguments: [1e300, .infinity] as [TimeInterval])
    func hugeLeewaysAreAccepted(leeway: TimeInterval) {
        for scheduler in Self.queueSchedulers() {
            let timer = scheduler.schedule(after: .distantFuture, repeatingEvery: 1, withLeeway: leeway) {}
            #expect(timer?.isDisposed == false)
            timer!.dispose()
            #expect(timer!.isDisposed)
        }
    }

    /// A 1 ns timer fires as fast as Dispatch can; disposing it soon after stops it.
    @Test func oneNanosecondIntervalIsDisposable() {
        for scheduler in Self.queueSchedulers() {
            let ticks = Locked(0)
            let timer = scheduler.schedule(after: Date(), repeatingEvery: 1e-9) { ticks.withLock { $0 += 1 } }
            #expect(waitUntil(timeout: 30) { ticks.value >= 10 })
            timer!.dispose()
            let flushed = DispatchSemaphore(value: 0)
            scheduler.schedule { flushed.signal() }
            #expect(flushed.wait(timeout: .now() + 30) == .success)
            let settled = ticks.value
            // Another flush: no tick after the timer was disposed and its last tick finished.
            scheduler.schedule { flushed.signal() }
            #expect(flushed.wait(timeout: .now() + 30) == .success)
            #expect(ticks.value == settled)
        }
    }

    @Test func extremeDatesOnTheTestScheduler() {
        let scheduler = TestScheduler()
        let order = Locked<[String]>([])
        scheduler.schedule(after: .distantPast) { order.withLock { $0.append("past") } }
        scheduler.schedule(afterDelay: -1e300) { order.withLock { $0.append("-1e300") } }
        scheduler.schedule(afterDelay: .nan) { order.withLock { $0.append("nan") } }
        scheduler.schedule(after: .distantFuture) { order.withLock { $0.append("future") } }
        scheduler.schedule(afterDelay: 1e300) { order.withLock { $0.append("1e300") } }
        let start = scheduler.now
        scheduler.advance(by: 0)
        // Past and NaN dates run at `now`, which does not move backwards.
        #expect(order.value == ["past", "-1e300", "nan"])
        #expect(scheduler.now == start)
        scheduler.advance(to: .distantFuture)
        #expect(order.value.last == "future")
        #expect(scheduler.now == .distantFuture)
        scheduler.advance(by: 1e300)
        #expect(order.value.last == "1e300")
        #expect(scheduler.pendingCount == 0)
        #expect(scheduler.now.timeIntervalSinceReferenceDate.isFinite)
    }

    @Test func extremeIntervalsOnTheTestScheduler() {
        let scheduler = TestScheduler()
        let ticks = Locked([0, 0, 0])
        let nanosecond = scheduler.schedule(after: scheduler.now, repeatingEvery: 1e-9) { ticks.withLock { $0[0] += 1 } }
        let decade = scheduler.schedule(after: scheduler.now, repeatingEvery: 10 * Self.year) { ticks.withLock { $0[1] += 1 } }
        let huge = scheduler.schedule(after: scheduler.now, repeatingEvery: 1e300) { ticks.withLock { $0[2] += 1 } }
        scheduler.advance(by: 1e-6)
        #expect(ticks.value[0] >= 900)
        nanosecond!.dispose()
        scheduler.advance(by: 25 * Self.year)
        #expect(ticks.value[1] == 3)
        #expect(ticks.value[2] == 1)
        decade!.dispose()
        huge!.dispose()
        #expect(scheduler.pendingCount == 0)
    }

    /// Far from the reference date a 1 ns step is below a Double's resolution; repeating at that
    /// interval must still let virtual time move on, or `advance` would never return.
    @Test func nanosecondIntervalFarFromTheReferenceDateDoesNotHang() {
        let scheduler = TestScheduler(startDate: Date(timeIntervalSinceReferenceDate: 1e9))
        let ticks = Locked(0)
        let timer = scheduler.schedule(after: scheduler.now, repeatingEvery: 1e-9) { ticks.withLock { $0 += 1 } }
        scheduler.advance(by: 1e-6)
        #expect(ticks.value >= 1)
        #expect(scheduler.now == Date(timeIntervalSinceReferenceDate: 1e9).addingTimeInterval(1e-6))
        timer!.dispose()
    }

    /// A million pending actions on one TestScheduler: they all run, in due order, FIFO among
    /// equal dates; disposing half of them first skips exactly those.
    @Test func millionPendingActions() {
        let count = stressCount(1_000_000)
        let scheduler = TestScheduler()
        var random = SeededRandom(seed: 0x1E6)
        let log = Locked<(ran: Int, lastTime: Date, lastIndexAtTime: Int, outOfOrder: Int, disposedRan: Int)>(
            (0, .distantPast, -1, 0, 0))
        var disposables: [any Disposable] = []
        disposables.reserveCapacity(count)
        for index in 0..<count {
            let delay = Double(random.next() % 1000)
            let disposed = index % 2 == 1
            disposables.append(scheduler.schedule(afterDelay: delay) {
                let now = scheduler.now
                log.withLock { log in
                    log.ran += 1
                    if disposed { log.disposedRan += 1 }
                    if now < log.lastTime || (now == log.lastTime && index < log.lastIndexAtTime) { log.outOfOrder += 1 }
                    log.lastTime = now
                    log.lastIndexAtTime = index
                }
            }!)
        }
        #expect(scheduler.pendingCount == count)
        for index in stride(from: 1, to: count, by: 2) { disposables[index].dispose() }
        #expect(scheduler.pendingCount == count / 2)
        scheduler.advance(by: 1000)
        let result = log.value
        #expect(result.ran == count / 2)
        #expect(result.disposedRan == 0)
        #expect(result.outOfOrder == 0)
        #expect(scheduler.pendingCount == 0)
    }
}
