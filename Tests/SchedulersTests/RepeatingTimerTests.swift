import Foundation
import Schedulers
import Testing
import TestSupport

/// Repeating work on a QueueScheduler: RACSchedulerSpec "+scheduler should schedule recurring
/// blocks", ReactiveSwift's repeating QueueScheduler cases, and the lifetime contract (runs
/// until disposed, retained or not; no tick after a disposal made on the timer's own queue).
/// The main-queue case is in MainSchedulerTests.
@Suite(.ownThread, .timeLimit(.minutes(5))) struct RepeatingTimerTests {
    /// RAC: "should schedule recurring blocks".
    @Test func schedulesRecurringBlocks() {
        let scheduler = TargetQueueScheduler()
        let count = Locked(0)
        let disposable = scheduler.schedule(after: Date(), repeatingEvery: 0.05, withLeeway: 0) {
            count.withLock { $0 += 1 }
        }
        #expect(disposable != nil)
        #expect(waitUntil { count.value >= 1 })
        #expect(waitUntil { count.value >= 2 })
        #expect(waitUntil { count.value >= 3 })
        disposable?.dispose()
        #expect(disposable?.isDisposed == true)
        #expect(count.value >= 3)
    }

    @Test func firstTickIsNotBeforeTheStartDate() {
        let scheduler = TargetQueueScheduler()
        let start = Date(timeIntervalSinceNow: 0.05)
        let firstTick = Locked<Date?>(nil)
        let disposable = scheduler.schedule(after: start, repeatingEvery: 10) {
            firstTick.withLock { if $0 == nil { $0 = Date() } }
        }
        #expect(waitUntil { firstTick.value != nil })
        #expect(firstTick.value! >= start)
        disposable?.dispose()
    }

    @Test func everyTickRunsAsTheCurrentScheduler() {
        let scheduler = TargetQueueScheduler(name: "repeating.current")
        let ticks = Locked<[Bool]>([])
        let disposable = scheduler.schedule(after: Date(), repeatingEvery: 0.005) {
            ticks.withLock { $0.append(Scheduler.current === scheduler) }
        }
        #expect(waitUntil { ticks.value.count >= 5 })
        disposable?.dispose()
        #expect(ticks.value.allSatisfy { $0 })
    }

    @Test func leewayIsAccepted() {
        let scheduler = TargetQueueScheduler()
        let count = Locked(0)
        let disposable = scheduler.schedule(after: Date(), repeatingEvery: 0.01, withLeeway: 0.05) {
            count.withLock { $0 += 1 }
        }
        #expect(waitUntil { count.value >= 3 })
        disposable?.dispose()
    }

    /// ReactiveSwift: "should repeatedly run actions after a given date" — disposed from inside
    /// its own tick. No tick follows the disposal, however long we keep watching.
    @Test func disposalFromInsideATickStopsAtOnce() {
        let queue = DispatchQueue(label: "repeating.inside")
        let scheduler = QueueScheduler(queue: queue)
        queue.suspend()
        let handle = Locked<(any Disposable)?>(nil)
        let state = Locked((count: 0, disposed: false, ticksAfterDispose: 0))
        let timesToRun = 3
        let disposable = scheduler.schedule(after: Date(), repeatingEvery: 0.001) {
            let dispose = state.withLock { state -> Bool in
                if state.disposed { state.ticksAfterDispose += 1 }
                state.count += 1
                return state.count == timesToRun
            }
            if dispose {
                handle.value?.dispose()
                state.withLock { $0.disposed = true }
            }
        }
        handle.withLock { $0 = disposable }
        #expect(state.value.count == 0)
        queue.resume()
        #expect(waitUntil { state.value.disposed })
        // Watch for another 50 intervals (an observation window, not synchronisation).
        let watched = Locked(false)
        scheduler.schedule(afterDelay: 0.05) { watched.withLock { $0 = true } }
        #expect(waitUntil { watched.value })
        #expect(state.value.count == timesToRun)
        #expect(state.value.ticksAfterDispose == 0)
        #expect(disposable?.isDisposed == true)
    }

    /// Disposed from a block on the timer's queue (so no tick can be running): nothing ticks
    /// after `dispose()` returns, and the action is released before it returns.
    @Test func disposalFromTheTimersQueueStopsAtOnceAndReleasesTheAction() {
        let scheduler = TargetQueueScheduler(name: "repeating.queue")
        let state = Locked((count: 0, disposed: false, ticksAfterDispose: 0))
        var token: Token? = Token()
        let weak = Weak(token!)
        let disposable = scheduler.schedule(after: Date(), repeatingEvery: 0.001) { [token] in
            _ = token
            state.withLock {
                if $0.disposed { $0.ticksAfterDispose += 1 }
                $0.count += 1
            }
        }!
        token = nil
        #expect(waitUntil { state.value.count >= 3 })
        let releasedAtDispose = Locked(false)
        scheduler.queue.async {
            disposable.dispose()
            state.withLock { $0.disposed = true }
            releasedAtDispose.withLock { $0 = weak.object == nil }
        }
        #expect(waitUntil { state.value.disposed })
        let watched = Locked(false)
        scheduler.schedule(afterDelay: 0.05) { watched.withLock { $0 = true } }
        #expect(waitUntil { watched.value })
        #expect(state.value.ticksAfterDispose == 0)
        #expect(releasedAtDispose.value)
    }

    /// From another thread a tick in progress may finish, but the count stops growing.
    @Test func disposalFromAnotherThreadStopsTheTimer() {
        let scheduler = TargetQueueScheduler(name: "repeating.other")
        let count = Locked(0)
        var token: Token? = Token()
        let weak = Weak(token!)
        let disposable = scheduler.schedule(after: Date(), repeatingEvery: 0.001) { [token] in
            _ = token
            count.withLock { $0 += 1 }
        }
        token = nil
        #expect(waitUntil { count.value >= 3 })
        disposable?.dispose()
        let atDispose = count.value
        #expect(waitUntil { weak.object == nil })
        let watched = Locked(false)
        scheduler.schedule(afterDelay: 0.05) { watched.withLock { $0 = true } }
        #expect(waitUntil { watched.value })
        #expect(count.value <= atDispose + 1)
    }

    /// ReactiveSwift: "should cancel repeatedly run actions on disposal" — one of two timers is
    /// disposed before its queue even starts; only the other ever runs.
    @Test func cancelsRepeatedlyRunActionsOnDisposal() {
        let queue = DispatchQueue(label: "repeating.two")
        let scheduler = QueueScheduler(queue: queue)
        queue.suspend()
        let cancelledTicks = Locked(0)
        let count = Locked(0)
        let first = scheduler.schedule(after: Date(), repeatingEvery: 0.01) { cancelledTicks.withLock { $0 += 1 } }
        let second = scheduler.schedule(after: Date(), repeatingEvery: 0.01) { count.withLock { $0 += 1 } }
        first?.dispose()
        #expect(count.value == 0)
        queue.resume()
        #expect(waitUntil { count.value >= 3 })
        second?.dispose()
        #expect(cancelledTicks.value == 0)
    }

    /// ReactiveSwift: "should repeatedly run actions after a given date when the disposable is
    /// not retained" — and here, not the scheduler either. It stops when finally disposed.
    @Test func keepsTickingWithEveryHandleDroppedAndStopsOnDispose() {
        let count = Locked(0)
        var token: Token? = Token()
        let weakToken = Weak(token!)
        let (weakScheduler, weakTimer) = { [token] () -> (Weak<TargetQueueScheduler>, Weak<AnyObject>) in
            let scheduler = TargetQueueScheduler(name: "repeating.unretained")
            let disposable = scheduler.schedule(after: Date(), repeatingEvery: 0.002) {
                _ = token
                count.withLock { $0 += 1 }
            }!
            return (Weak(scheduler), Weak(disposable as AnyObject))
        }()
        token = nil
        // Neither the scheduler nor the disposable is held by the test any more.
        #expect(waitUntil { count.value >= 3 })
        let seen = count.value
        #expect(waitUntil { count.value >= seen + 3 })
        do {
            let timer = weakTimer.object as? any Disposable
            #expect(timer != nil)
            timer?.dispose()
            #expect(timer?.isDisposed == true)
        }
        // Disposal releases the action and the scheduler; the cancelled source lets go of the timer.
        #expect(waitUntil { weakToken.object == nil && weakScheduler.object == nil })
        #expect(waitUntil { weakTimer.object == nil })
        let stopped = count.value
        let probe = TargetQueueScheduler()
        let watched = Locked(false)
        probe.schedule(afterDelay: 0.05) { watched.withLock { $0 = true } }
        #expect(waitUntil { watched.value })
        #expect(count.value <= stopped + 1)
    }

    /// A 1e300 s interval is valid input: the first tick happens, then effectively never again.
    @Test func hugeIntervalTicksOnce() {
        let scheduler = TargetQueueScheduler()
        let count = Locked(0)
        let disposable = scheduler.schedule(after: Date(), repeatingEvery: 1e300) { count.withLock { $0 += 1 } }
        #expect(waitUntil { count.value == 1 })
        disposable?.dispose()
    }

    @Test func disposeIsIdempotent() {
        let scheduler = TargetQueueScheduler()
        let disposable = scheduler.schedule(after: Date(timeIntervalSinceNow: 3600), repeatingEvery: 1) {
            Issue.record("ticked")
        }
        #expect(disposable?.isDisposed == false)
        disposable?.dispose()
        disposable?.dispose()
        #expect(disposable?.isDisposed == true)
    }
}
