import Foundation
import Schedulers
import Testing
import TestSupport

/// A subclass tells the package its notion of time by overriding `now`, and its
/// lifetime needs by overriding `storesPendingWork`; every default then follows.
@Suite(.ownThread, .timeLimit(.minutes(5))) struct SubclassTimeTests {
    let start = Date(timeIntervalSinceReferenceDate: 1_000)

    @Test func nowIsTheWallClockByDefault() {
        let before = Date()
        let now = Scheduler.immediate.now
        #expect(now >= before && now <= Date())
        let queue = TargetQueueScheduler(name: "now")
        #expect(abs(queue.now.timeIntervalSinceNow) < 60)
    }

    @Test func nowIsVirtualOnATestScheduler() {
        let scheduler = TestScheduler(startDate: start)
        let base: Scheduler = scheduler
        #expect(base.now == start)
        scheduler.advance(by: 5)
        #expect(base.now == start.addingTimeInterval(5))
    }

    @Test func afterDelayCountsFromTheSubclassesNow() {
        let scheduler = VirtualClockScheduler(now: start)
        scheduler.schedule(afterDelay: 5) {}
        #expect(scheduler.scheduled.map(\.date) == [start.addingTimeInterval(5)])
    }

    @Test func durationFormCountsFromTheSubclassesNow() {
        let scheduler = VirtualClockScheduler(now: start)
        scheduler.schedule(after: .seconds(7)) {}
        #expect(scheduler.scheduled.map(\.date) == [start.addingTimeInterval(7)])
    }

    // Defect 4: the repeating Duration form gave a virtual-time subclass a wall-clock start.
    @Test func repeatingDurationFormStartsAtTheSubclassesNowPlusTheDelay() {
        let scheduler = VirtualClockScheduler(now: start)
        scheduler.schedule(after: .seconds(3), repeatingEvery: .milliseconds(1500)) {}
        let scheduled = scheduler.scheduled
        #expect(scheduled.count == 1)
        #expect(scheduled.first?.date == start.addingTimeInterval(3))
        #expect(scheduled.first?.interval == 1.5)
    }

    @Test func aSubclassMayOverrideTheDurationForms() {
        final class Recording: Scheduler, @unchecked Sendable {
            let delays = Locked<[Duration]>([])
            override func schedule(_ action: @escaping @Sendable () -> Void) -> (any Disposable)? { nil }
            override func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> (any Disposable)? {
                delays.withLock { $0.append(delay) }
                return nil
            }
        }
        let scheduler = Recording()
        let base: Scheduler = scheduler
        base.schedule(after: .seconds(2)) {}
        #expect(scheduler.delays.value == [.seconds(2)])
    }

    @Test func sleepOnAVirtualSubclassWakesInItsTime() async throws {
        let scheduler = VirtualClockScheduler(now: start)
        let woke = Locked(false)
        let task = Task {
            try await scheduler.sleep(for: .seconds(10))
            woke.withLock { $0 = true }
        }
        // Waits off the pool: the task it waits for needs a pool thread. If the sleep never
        // arrives, advancing would not wake it and awaiting the task would hang: stop instead.
        let slept = await waitUntilOffPool { scheduler.scheduled.count == 1 }
        if !slept { task.cancel() }
        try #require(slept)
        #expect(scheduler.scheduled.first?.date == start.addingTimeInterval(10))
        scheduler.advance(to: start.addingTimeInterval(10))
        try await task.value
        #expect(woke.value)
    }

    // Defect 5: a virtual-time subclass leaked through scheduleRecursive, because the chain held
    // the scheduler and the scheduler's stored work held the chain.
    @Test func aRecursiveChainDoesNotKeepAVirtualSubclassAlive() {
        let weak: Weak<VirtualClockScheduler>
        do {
            let scheduler = VirtualClockScheduler(storesPendingWork: true)
            weak = Weak(scheduler)
            scheduler.scheduleRecursive { reschedule in reschedule() }
            #expect(scheduler.scheduled.count == 1, "the chain has its first iteration pending")
        }
        #expect(weak.object == nil)
    }

    /// The control: the flag is what makes the difference. A scheduler that hands its work to
    /// GCD is held by its pending chain, as it must be for the chain to run.
    @Test func aSchedulerThatDoesNotStoreItsWorkIsHeldByItsPendingChain() {
        let weak: Weak<VirtualClockScheduler>
        let keepGoing = Locked(true)
        do {
            let scheduler = VirtualClockScheduler(storesPendingWork: false)
            weak = Weak(scheduler)
            scheduler.scheduleRecursive { reschedule in if keepGoing.value { reschedule() } }
        }
        #expect(weak.object != nil)
        // Running the last iteration ends the chain, and with it the only reference.
        keepGoing.withLock { $0 = false }
        weak.object?.advance(to: Date.distantFuture)
        #expect(weak.object == nil)
    }

    @Test func storesPendingWorkDefaults() {
        #expect(!Scheduler.immediate.storesPendingWork)
        #expect(!Scheduler.main.storesPendingWork)
        #expect(!Scheduler.mainInline.storesPendingWork)
        #expect(!Scheduler.subscription.storesPendingWork)
        #expect(!TargetQueueScheduler(name: "stores").storesPendingWork)
        #expect(TestScheduler().storesPendingWork)
    }
}
