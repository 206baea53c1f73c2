import Foundation
import Schedulers
import XCTest

/// `Scheduler.main` and `Scheduler.current` on the main thread. XCTest, because these bodies
/// run on the main thread, and the main queue drains only while it spins its run loop
/// (`waitUntil` does), never blocked on a semaphore. RACSchedulerSpec "+mainThreadScheduler",
/// the main-thread current-scheduler jumpers and the asynchronous `-scheduleRecursiveBlock:`
/// cases, and ReactiveSwift's UIScheduler enqueueing cases where they map to an asynchronous main.
final class MainSchedulerTests: XCTestCase {
    private static let mainQueueKey = DispatchSpecificKey<Bool>()

    override class func setUp() {
        super.setUp()
        DispatchQueue.main.setSpecific(key: mainQueueKey, value: true)
    }

    // MARK: Scheduler.current on the main thread

    func testCurrentIsMainOnTheMainThread() {
        XCTAssertTrue(Thread.isMainThread)
        XCTAssertTrue(Scheduler.current === Scheduler.main)
    }

    /// `isCurrent` gives `Scheduler.current === self` on the main thread too, nested or not.
    func testIsCurrentOnTheMainThread() {
        XCTAssertTrue(Scheduler.main.isCurrent)
        let other = TargetQueueScheduler(name: "main.isCurrent.other")
        XCTAssertFalse(other.isCurrent)
        var inside = (main: true, other: false)
        other.performAsCurrentScheduler { inside = (Scheduler.main.isCurrent, other.isCurrent) }
        XCTAssertFalse(inside.main)
        XCTAssertTrue(inside.other)
        XCTAssertTrue(Scheduler.main.isCurrent)
        XCTAssertFalse(other.isCurrent)
    }

    func testCurrentIsRestoredToMainAfterNestedPerformAsCurrentScheduler() {
        let other = TargetQueueScheduler(name: "main.nested")
        var inside: Scheduler?
        other.performAsCurrentScheduler { inside = Scheduler.current }
        XCTAssertTrue(inside === other)
        XCTAssertTrue(Scheduler.current === Scheduler.main)
    }

    func testImmediateLeavesMainCurrent() {
        let seen = Locked<Scheduler?>(nil)
        Scheduler.immediate.schedule { seen.withLock { $0 = Scheduler.current } }
        XCTAssertTrue(seen.value === Scheduler.main)
    }

    /// RAC: "should know its current scheduler", jumping between main and background.
    func testCurrentSchedulerJumpsFromMainToBackgroundAndBack() {
        let background = TargetQueueScheduler()
        let jumper: [Scheduler] = [.main, background, .main]
        XCTAssertEqual(currentSchedulersSeen(along: jumper), schedulerIdentities(jumper))
    }

    func testCurrentSchedulerJumpsFromBackgroundToMainAndBack() {
        let background = TargetQueueScheduler()
        let jumper: [Scheduler] = [background, .main, background]
        XCTAssertEqual(currentSchedulersSeen(along: jumper), schedulerIdentities(jumper))
    }

    func testMainQueueBlockSeesMainAsCurrent() {
        let seen = Locked<(Scheduler?, Bool)?>(nil)
        DispatchQueue.main.async { seen.withLock { $0 = (Scheduler.current, Thread.isMainThread) } }
        XCTAssertTrue(waitUntil { seen.value != nil })
        XCTAssertTrue(seen.value?.0 === Scheduler.main)
        XCTAssertEqual(seen.value?.1, true)
    }

    // MARK: Scheduler.main

    func testMainIsOneTargetQueueSchedulerOnTheMainQueue() {
        XCTAssertTrue(Scheduler.main is TargetQueueScheduler)
        XCTAssertTrue(Scheduler.main === Scheduler.main)
        let seen = Locked<(onMainQueue: Bool, mainThread: Bool, current: Scheduler?)?>(nil)
        Scheduler.main.schedule {
            seen.withLock {
                $0 = (DispatchQueue.getSpecific(key: Self.mainQueueKey) == true, Thread.isMainThread, Scheduler.current)
            }
        }
        XCTAssertTrue(waitUntil { seen.value != nil })
        XCTAssertEqual(seen.value?.onMainQueue, true)
        XCTAssertEqual(seen.value?.mainThread, true)
        XCTAssertTrue(seen.value?.current === Scheduler.main)
    }

    /// Always asynchronous, even when called on the main thread.
    func testScheduleFromTheMainThreadIsNotInline() {
        let ran = Locked(false)
        Scheduler.main.schedule { ran.withLock { $0 = true } }
        XCTAssertFalse(ran.value)
        XCTAssertTrue(waitUntil { ran.value })
    }

    /// RAC: "should cancel scheduled blocks when disposed".
    func testCancelsScheduledBlocksWhenDisposed() {
        let ran = Locked((first: false, second: false))
        let disposable = Scheduler.main.schedule { ran.withLock { $0.first = true } }
        XCTAssertNotNil(disposable)
        Scheduler.main.schedule { ran.withLock { $0.second = true } }
        disposable?.dispose()
        XCTAssertFalse(ran.value.second)
        XCTAssertTrue(waitUntil { ran.value.second })
        XCTAssertFalse(ran.value.first)
    }

    /// RAC: "should schedule future blocks".
    func testSchedulesFutureBlocks() {
        let done = Locked(false)
        Scheduler.main.schedule(after: Date()) { done.withLock { $0 = true } }
        XCTAssertFalse(done.value)
        XCTAssertTrue(waitUntil { done.value })
    }

    /// RAC: "should cancel future blocks when disposed".
    func testCancelsFutureBlocksWhenDisposed() {
        let ran = Locked((first: false, second: false))
        let disposable = Scheduler.main.schedule(after: Date()) { ran.withLock { $0.first = true } }
        XCTAssertNotNil(disposable)
        Scheduler.main.schedule(after: Date()) { ran.withLock { $0.second = true } }
        disposable?.dispose()
        XCTAssertFalse(ran.value.second)
        XCTAssertTrue(waitUntil { ran.value.second })
        XCTAssertFalse(ran.value.first)
    }

    /// RAC: "should schedule recurring blocks". Disposed on the main thread, which is where the
    /// ticks run, so not one more tick happens after that.
    func testSchedulesRecurringBlocks() {
        let count = Locked(0)
        let currentWasMain = Locked(true)
        let disposable = Scheduler.main.schedule(after: Date(), repeatingEvery: 0.05, withLeeway: 0) {
            if Scheduler.current !== Scheduler.main || !Thread.isMainThread { currentWasMain.withLock { $0 = false } }
            count.withLock { $0 += 1 }
        }
        XCTAssertEqual(count.value, 0)
        XCTAssertTrue(waitUntil { count.value >= 1 })
        XCTAssertTrue(waitUntil { count.value >= 2 })
        XCTAssertTrue(waitUntil { count.value >= 3 })
        disposable?.dispose()
        let atDispose = count.value
        RunLoop.main.run(until: Date(timeIntervalSinceNow: 0.1))
        XCTAssertGreaterThanOrEqual(count.value, 3)
        XCTAssertEqual(count.value, atDispose)
        XCTAssertTrue(currentWasMain.value)
    }

    /// ReactiveSwift UIScheduler: "should enqueue actions scheduled from the background" and
    /// "should run actions enqueued from the main thread after those from the background".
    func testActionsFromTheBackgroundAndTheMainThreadRunInOrderOnMain() {
        let values = Locked<[Int]>([])
        let wrongThread = Locked(false)
        let record: @Sendable (Int) -> Void = { value in
            if !Thread.isMainThread { wrongThread.withLock { $0 = true } }
            values.withLock { $0.append(value) }
        }
        let scheduledFromBackground = Locked(false)
        DispatchQueue.global().async {
            Scheduler.main.schedule { record(0) }
            scheduledFromBackground.withLock { $0 = true }
        }
        // Waits without draining main: nothing may run until the two below are queued too.
        XCTAssertTrue(waitUntilWithoutRunLoop { scheduledFromBackground.value })
        Scheduler.main.schedule { record(1) }
        Scheduler.main.schedule { record(2) }
        XCTAssertEqual(values.value, [])
        XCTAssertTrue(waitUntil { values.value.count == 3 })
        XCTAssertEqual(values.value, [0, 1, 2])
        XCTAssertFalse(wrongThread.value)
    }

    // MARK: scheduleRecursive on main (RAC "with an asynchronous scheduler")

    func testRecursiveBehavesLikeANormalBlockWhenItDoesNotRecurse() {
        let executed = Locked(0)
        Scheduler.main.scheduleRecursive { _ in executed.withLock { $0 += 1 } }
        XCTAssertEqual(executed.value, 0)
        XCTAssertTrue(waitUntil { executed.value == 1 })
    }

    func testRecursiveReschedulesItselfAfterTheCallerCompletes() {
        let count = Locked(0)
        let ranEarly = Locked(false)
        Scheduler.main.scheduleRecursive { reschedule in
            let thisCount = count.withLock { $0 += 1; return $0 }
            if thisCount < 3 {
                reschedule()
                if count.value != thisCount { ranEarly.withLock { $0 = true } }
            }
        }
        XCTAssertTrue(waitUntil { count.value == 3 })
        XCTAssertFalse(ranEarly.value)
    }

    func testRecursiveReschedulesWhenInvokedAsynchronously() {
        let count = Locked(0)
        let asynchronous = TargetQueueScheduler()
        Scheduler.main.scheduleRecursive { reschedule in
            asynchronous.schedule(after: Date(timeIntervalSinceNow: 0.01)) {
                let thisCount = count.withLock { $0 += 1; return $0 }
                if thisCount < 3 { reschedule() }
            }
        }
        XCTAssertTrue(waitUntil { count.value == 3 })
    }

    func testRecursiveDoesNotRescheduleItselfWhenDisposed() {
        let count = Locked(0)
        let handle = Locked<(any Disposable)?>(nil)
        let disposable = Scheduler.main.scheduleRecursive { reschedule in
            count.withLock { $0 += 1 }
            handle.value?.dispose()
            reschedule()
        }
        // Nothing on main runs before this test body spins the run loop, so the handle is set
        // before the first run.
        handle.withLock { $0 = disposable }
        XCTAssertNotNil(disposable)
        XCTAssertTrue(waitUntil { count.value == 1 })
        RunLoop.main.run(until: Date(timeIntervalSinceNow: 0.05))
        XCTAssertEqual(count.value, 1)
    }
}

/// Polls `condition` without spinning the run loop, so main-queue work stays queued.
private func waitUntilWithoutRunLoop(timeout: TimeInterval = 10, _ condition: () -> Bool) -> Bool {
    let deadline = Date(timeIntervalSinceNow: timeout)
    while !condition() {
        if Date() > deadline { return false }
        Thread.sleep(forTimeInterval: 0.001)
    }
    return true
}
