import Foundation
import Schedulers
import Testing
import TestSupport

/// RACSchedulerSpec "+immediateScheduler" and ReactiveSwift's ImmediateScheduler spec.
@Suite(.ownThread, .timeLimit(.minutes(5))) struct ImmediateSchedulerTests {
    @Test func sharedInstanceIsAnImmediateScheduler() {
        #expect(Scheduler.immediate is ImmediateScheduler)
        #expect(Scheduler.immediate === Scheduler.immediate)
    }

    /// RAC: "should immediately execute scheduled blocks"; ReactiveSwift: "should run enqueued
    /// actions immediately".
    @Test func runsScheduledActionsImmediatelyAndReturnsNil() {
        let executed = Locked(false)
        let disposable = Scheduler.immediate.schedule { executed.withLock { $0 = true } }
        #expect(disposable == nil)
        #expect(executed.value)
    }

    @Test func aNewInstanceRunsImmediatelyToo() {
        let executed = Locked(false)
        #expect(ImmediateScheduler().schedule { executed.withLock { $0 = true } } == nil)
        #expect(executed.value)
    }

    @Test func runsOnTheCallingThreadInOrder() {
        let caller = ObjectIdentifier(Thread.current)
        let seen = Locked<[Int]>([])
        let sameThread = Locked(true)
        for index in 0..<5 {
            Scheduler.immediate.schedule {
                seen.withLock { $0.append(index) }
                if ObjectIdentifier(Thread.current) != caller { sameThread.withLock { $0 = false } }
            }
        }
        #expect(seen.value == [0, 1, 2, 3, 4])
        #expect(sameThread.value)
    }

    /// An action scheduled from inside an action runs at once, nested (not queued).
    @Test func nestedScheduleRunsInline() {
        let order = Locked<[String]>([])
        Scheduler.immediate.schedule {
            order.withLock { $0.append("outer start") }
            Scheduler.immediate.schedule { order.withLock { $0.append("inner") } }
            order.withLock { $0.append("outer end") }
        }
        #expect(order.value == ["outer start", "inner", "outer end"])
    }

    /// RAC: "should block for future scheduled blocks".
    @Test func blocksForFutureScheduledBlocks() {
        let executed = Locked(false)
        let start = Date()
        let disposable = Scheduler.immediate.schedule(after: Date(timeIntervalSinceNow: 0.01)) {
            executed.withLock { $0 = true }
        }
        #expect(executed.value)
        #expect(disposable == nil)
        #expect(Date().timeIntervalSince(start) >= 0.01)
    }

    @Test func blocksForAfterDelay() {
        let executed = Locked(false)
        let start = Date()
        let disposable = Scheduler.immediate.schedule(afterDelay: 0.02) { executed.withLock { $0 = true } }
        #expect(executed.value)
        #expect(disposable == nil)
        #expect(Date().timeIntervalSince(start) >= 0.02)
    }

    /// Past, NaN and pre-epoch dates mean "now": the call returns having run the action (a
    /// trap or an endless block would fail the test through its time limit).
    @Test(.timeLimit(.minutes(5)), arguments: [
        Date.distantPast.timeIntervalSince1970, 0, Date().timeIntervalSince1970 - 3600, Double.nan, -Double.infinity,
    ])
    func pastDatesRunAtOnce(secondsSince1970: Double) {
        let date = Date(timeIntervalSince1970: secondsSince1970)
        let executed = Locked(false)
        #expect(Scheduler.immediate.schedule(after: date) { executed.withLock { $0 = true } } == nil)
        #expect(executed.value)
    }
}
