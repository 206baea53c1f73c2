import Foundation
import Schedulers
import Testing
import TestSupport

/// `schedule(after: Duration)` and `schedule(after: Duration, repeatingEvery:leeway:)`.
@Suite(.ownThread, .timeLimit(.minutes(5))) struct DurationSchedulingTests {
    // MARK: On a queue (the monotonic clock)

    @Test(.timeLimit(.minutes(5)))
    func aDelayedActionRunsOnTheQueueAsCurrentAfterTheDelay() async {
        let scheduler = TargetQueueScheduler()
        let clock = ContinuousClock()
        let start = clock.now
        let isCurrent = await withCheckedContinuation { continuation in
            scheduler.schedule(after: .milliseconds(30)) { continuation.resume(returning: Scheduler.current === scheduler) }
        }
        #expect(isCurrent)
        #expect(clock.now - start >= .milliseconds(30))
    }

    @Test(.timeLimit(.minutes(5)))
    func aDisposedDelayedActionNeverRunsAndIsReleasedAtOnce() async {
        let scheduler = TargetQueueScheduler()
        let ran = Locked(false)
        // Held until the disposal: on a loaded machine the test's thread can stall past the
        // 20 ms, and an action that has started runs.
        scheduler.queue.suspend()
        let (disposable, weak) = { () -> ((any Disposable)?, Weak<Token>) in
            let token = Token()
            let disposable = scheduler.schedule(after: .milliseconds(20)) {
                _ = token
                ran.withLock { $0 = true }
            }
            return (disposable, Weak(token))
        }()
        disposable?.dispose()
        scheduler.queue.resume()
        #expect(disposable?.isDisposed == true)
        #expect(weak.object == nil)
        // A later action on the same serial queue and clock: by then the first would have run.
        await withCheckedContinuation { continuation in
            scheduler.schedule(after: .milliseconds(60)) { continuation.resume() }
        }
        #expect(!ran.value)
    }

    @Test(.timeLimit(.minutes(5)))
    func aRepeatingActionTicksAsCurrentUntilDisposed() async {
        let scheduler = TargetQueueScheduler()
        let clock = ContinuousClock()
        let start = clock.now
        let ticks = Locked<[(ContinuousClock.Instant, Bool)]>([])
        let disposable = Locked<(any Disposable)?>(nil)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            // Held until the handle is stored, so that the third tick always finds it.
            scheduler.queue.suspend()
            let timer = scheduler.schedule(after: .milliseconds(30), repeatingEvery: .milliseconds(10)) {
                let count = ticks.withLock { ticks in
                    ticks.append((clock.now, Scheduler.current === scheduler))
                    return ticks.count
                }
                if count == 3 {
                    disposable.value?.dispose()  // from the timer's own queue: no tick after this
                    continuation.resume()
                }
            }
            disposable.withLock { $0 = timer }
            scheduler.queue.resume()
        }
        await withCheckedContinuation { continuation in
            scheduler.schedule(after: .milliseconds(50)) { continuation.resume() }
        }
        let seen = ticks.value
        #expect(seen.count == 3)
        #expect(seen.allSatisfy { $0.1 })
        #expect(seen[0].0 - start >= .milliseconds(30))
        #expect(seen[2].0 - start >= .milliseconds(50))
    }

    @Test func aSubclassFromOutsideTheModuleSeesThemThroughItsDateBasedMethods() {
        let scheduler = RecordingQueueScheduler()
        scheduler.schedule(after: .seconds(3600)) {}?.dispose()
        scheduler.schedule(after: .seconds(3600), repeatingEvery: .seconds(1)) {}?.dispose()
        #expect(scheduler.oneShots.value.count == 1)
        #expect(scheduler.repeating.value.count == 1)
    }

    @Test func theImmediateSchedulerBlocksForTheDelayThenRuns() {
        let clock = ContinuousClock()
        let start = clock.now
        let ran = Locked(false)
        let disposable = Scheduler.immediate.schedule(after: .milliseconds(20)) { ran.withLock { $0 = true } }
        #expect(disposable == nil)
        #expect(ran.value)
        #expect(clock.now - start >= .milliseconds(20))
    }

    @Test func extremeDelaysDoNotTrap() {
        let scheduler = TargetQueueScheduler()
        scheduler.schedule(after: .seconds(Int64.max)) {}?.dispose()
        scheduler.schedule(after: .seconds(Int64.min)) {}?.dispose()
        scheduler.schedule(after: .seconds(Int64.max), repeatingEvery: .seconds(Int64.max), leeway: .seconds(Int64.max)) {}?
            .dispose()
        scheduler.schedule(after: .zero, repeatingEvery: .nanoseconds(1)) {}?.dispose()
        let test = TestScheduler()
        test.schedule(after: .seconds(Int64.max)) {}
        test.schedule(after: .seconds(Int64.min)) {}
        #expect(test.pendingCount == 2)
    }

    // MARK: Virtual time

    @Test func onATestSchedulerTheyAreVirtual() {
        let scheduler = TestScheduler()
        let runs = Locked<[Date]>([])
        scheduler.schedule(after: .seconds(2)) { runs.withLock { $0.append(scheduler.now) } }
        let timer = scheduler.schedule(after: .seconds(1), repeatingEvery: .milliseconds(1500), leeway: .seconds(1)) {
            runs.withLock { $0.append(scheduler.now) }
        }
        #expect(scheduler.pendingCount == 2)
        scheduler.advance(by: 4)
        #expect(runs.value == [1, 2, 2.5, 4].map { Date(timeIntervalSinceReferenceDate: $0) })
        timer?.dispose()
        #expect(scheduler.pendingCount == 0)
    }

    @Test func aNegativeDelayMeansNow() {
        let scheduler = TestScheduler()
        scheduler.advance(by: 5)
        let ranAt = Locked<Date?>(nil)
        scheduler.schedule(after: .seconds(-3)) { ranAt.withLock { $0 = scheduler.now } }
        scheduler.advance(by: 0)
        #expect(ranAt.value == Date(timeIntervalSinceReferenceDate: 5))
    }

    @Test func theSubscriptionSchedulerUsesTheCurrentSchedulersTime() {
        let scheduler = TestScheduler()
        let ranAt = Locked<[Date]>([])
        scheduler.schedule {
            Scheduler.subscription.schedule(after: .seconds(1)) { ranAt.withLock { $0.append(scheduler.now) } }
            Scheduler.subscription.schedule(after: .seconds(2), repeatingEvery: .seconds(2)) {
                ranAt.withLock { $0.append(scheduler.now) }
            }
        }
        scheduler.advance(by: 4)
        #expect(ranAt.value == [1, 2, 4].map { Date(timeIntervalSinceReferenceDate: $0) })
    }

    @Test(.timeLimit(.minutes(5)))
    func theSubscriptionSchedulerUsesItsBackgroundSchedulerOutsideAnyScheduler() async {
        let isOnSomeScheduler = await withCheckedContinuation { continuation in
            Scheduler.subscription.schedule(after: .milliseconds(1)) {
                continuation.resume(returning: Scheduler.current != nil)
            }
        }
        #expect(isOnSomeScheduler)
    }
}
