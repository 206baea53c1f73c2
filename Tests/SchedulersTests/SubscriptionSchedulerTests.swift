import Foundation
import Schedulers
import Testing
import TestSupport
import XCTest

/// SubscriptionScheduler (RACSubscriptionScheduler): inline when a scheduler is current, else on
/// its background scheduler; delayed and repeating work goes to `current ?? background`.
@Suite(.ownThread, .timeLimit(.minutes(5))) struct SubscriptionSchedulerTests {
    let subscription = Scheduler.subscription

    @Test func theSharedInstanceIsASubscriptionScheduler() {
        #expect(subscription is SubscriptionScheduler)
        #expect(Scheduler.subscription === subscription)
        #expect(subscription.description.contains("SubscriptionScheduler"))
    }

    // MARK: Inline when a scheduler is current

    @Test func runsInlineInsideATestSchedulerAction() {
        let scheduler = TestScheduler()
        let events = Locked([String]())
        scheduler.schedule {
            let disposable = subscription.schedule {
                events.withLock { $0.append("inner, current is the test scheduler: \(Scheduler.current === scheduler)") }
            }
            events.withLock { $0.append("returned \(disposable == nil ? "nil" : "a disposable")") }
        }
        scheduler.step()
        #expect(events.value == ["inner, current is the test scheduler: true", "returned nil"])
    }

    @Test func runsInlineInsideAQueueSchedulerAction() {
        let queue = TargetQueueScheduler(name: "subscription-tests.queue", targetQueue: .global())
        let events = Locked([String]())
        queue.schedule {
            subscription.schedule {
                events.withLock { $0.append("inner on the queue: \(Scheduler.current === queue)") }
            }
            events.withLock { $0.append("after") }
        }
        #expect(waitUntil { events.value.count == 2 })
        #expect(events.value == ["inner on the queue: true", "after"])
    }

    @Test func nestedInlineSchedulingRunsDepthFirst() {
        let scheduler = TestScheduler()
        let events = Locked([Int]())
        scheduler.schedule {
            subscription.schedule {
                events.withLock { $0.append(1) }
                subscription.schedule { events.withLock { $0.append(2) } }
                events.withLock { $0.append(3) }
            }
        }
        scheduler.step()
        #expect(events.value == [1, 2, 3])
    }

    @Test func recursionInlineDoesNotGrowTheStack() {
        // Inline, each iteration would run inside the previous one's `schedule` call.
        let scheduler = TestScheduler()
        let iterations = Locked(0)
        scheduler.schedule {
            subscription.scheduleRecursive { reschedule in
                if iterations.withLock({ $0 += 1; return $0 }) < 100_000 { reschedule() }
            }
        }
        scheduler.step()
        #expect(iterations.value == 100_000)
    }

    // MARK: Background when no scheduler is current

    @Test func runsOnItsBackgroundSchedulerWhenNoneIsCurrent() {
        #expect(Scheduler.current == nil, "Swift Testing runs this off the main thread")
        let ranOn = Locked<[Scheduler?]>([])
        let disposable = subscription.schedule { ranOn.withLock { $0.append(Scheduler.current) } }
        #expect(disposable != nil)
        #expect(waitUntil { ranOn.value.count == 1 })
        let current = ranOn.value.first ?? nil
        #expect(current != nil)
        #expect(current !== subscription)
        #expect(current !== Scheduler.main)
        #expect(current is TargetQueueScheduler)
    }

    @Test func backgroundWorkRunsInFIFOOrderOneAtATime() {
        let order = Locked([Int]())
        let running = Locked(0)
        let overlaps = Locked(0)
        for index in 0..<200 {
            subscription.schedule {
                if running.withLock({ $0 += 1; return $0 }) > 1 { overlaps.withLock { $0 += 1 } }
                order.withLock { $0.append(index) }
                running.withLock { $0 -= 1 }
            }
        }
        #expect(waitUntil { order.value.count == 200 })
        #expect(order.value == Array(0..<200))
        #expect(overlaps.value == 0)
    }

    @Test func disposingBackgroundWorkBeforeItStartsStopsIt() {
        let gate = DispatchSemaphore(value: 0)
        let ran = Locked([String]())
        subscription.schedule {
            gate.wait()
            ran.withLock { $0.append("blocker") }
        }
        let victim = subscription.schedule { ran.withLock { $0.append("victim") } }
        subscription.schedule { ran.withLock { $0.append("after") } }
        victim?.dispose()
        gate.signal()
        #expect(waitUntil { ran.value.count == 2 })
        #expect(ran.value == ["blocker", "after"])
        #expect(victim?.isDisposed == true)
    }

    @Test func delayedWorkWithNoCurrentSchedulerRunsInTheBackground() {
        let ranOn = Locked<[Scheduler?]>([])
        let start = Date()
        subscription.schedule(afterDelay: 0.05) { ranOn.withLock { $0.append(Scheduler.current) } }
        subscription.schedule(after: Date(timeIntervalSinceNow: 0.05)) { ranOn.withLock { $0.append(Scheduler.current) } }
        #expect(waitUntil { ranOn.value.count == 2 })
        #expect(Date().timeIntervalSince(start) >= 0.05)
        #expect(ranOn.value.allSatisfy { $0 != nil && $0 !== subscription })
    }

    @Test func repeatingWorkWithNoCurrentSchedulerRunsInTheBackgroundUntilDisposed() {
        let ticks = Locked(0)
        let repeating = subscription.schedule(after: Date(), repeatingEvery: 0.01) {
            ticks.withLock { $0 += 1 }
        }
        #expect(waitUntil { ticks.value >= 3 })
        repeating?.dispose()
        #expect(repeating?.isDisposed == true)
    }

    // MARK: Delayed and repeating work goes to the current scheduler

    @Test func afterDelayInsideATestSchedulerActionIsVirtual() {
        let scheduler = TestScheduler()
        let seen = Locked([Date]())
        scheduler.schedule(afterDelay: 10) {
            subscription.schedule(afterDelay: 5) { seen.withLock { $0.append(scheduler.now) } }
        }
        scheduler.advance(by: 10)
        #expect(seen.value == [])
        #expect(scheduler.pendingCount == 1)
        scheduler.advance(by: 4)
        #expect(seen.value == [])
        scheduler.advance(by: 1)
        #expect(seen.value == [Date(timeIntervalSinceReferenceDate: 15)])
    }

    @Test func afterADateInsideATestSchedulerActionIsVirtual() {
        let scheduler = TestScheduler()
        let seen = Locked([Date]())
        scheduler.schedule {
            subscription.schedule(after: Date(timeIntervalSinceReferenceDate: 30)) {
                seen.withLock { $0.append(scheduler.now) }
            }
        }
        scheduler.step()
        #expect(scheduler.pendingCount == 1)
        scheduler.stepAll()
        #expect(seen.value == [Date(timeIntervalSinceReferenceDate: 30)])
    }

    @Test func repeatingInsideATestSchedulerActionGoesToThatScheduler() {
        let scheduler = TestScheduler()
        let seen = Locked([TimeInterval]())
        let repeating = Locked<(any Disposable)?>(nil)
        scheduler.schedule {
            let disposable = subscription.schedule(after: scheduler.now.addingTimeInterval(1), repeatingEvery: 2) {
                seen.withLock { $0.append(scheduler.now.timeIntervalSinceReferenceDate) }
            }
            repeating.withLock { $0 = disposable }
        }
        scheduler.step()
        #expect(scheduler.pendingCount == 1)
        scheduler.advance(by: 6)
        #expect(seen.value == [1, 3, 5])
        repeating.value?.dispose()
        #expect(scheduler.pendingCount == 0)
    }

    @Test func delayedWorkInsideAQueueSchedulerActionRunsOnThatQueue() {
        let queue = TargetQueueScheduler(name: "subscription-tests.delayed", targetQueue: .global())
        let ranOn = Locked<[Scheduler?]>([])
        queue.schedule {
            subscription.schedule(afterDelay: 0.01) { ranOn.withLock { $0.append(Scheduler.current) } }
        }
        #expect(waitUntil { ranOn.value.count == 1 })
        #expect(ranOn.value.first ?? nil === queue)
    }
}

/// On the main thread `Scheduler.current` is `main`, so the subscription scheduler runs inline.
/// An XCTest, because XCTest bodies run on the main thread.
final class SubscriptionSchedulerMainThreadTests: XCTestCase {
    func testRunsInlineOnTheMainThread() {
        XCTAssertTrue(Thread.isMainThread)
        XCTAssertTrue(Scheduler.current === Scheduler.main)
        let ran = Locked(false)
        let disposable = Scheduler.subscription.schedule { ran.withLock { $0 = true } }
        XCTAssertTrue(ran.value)
        XCTAssertNil(disposable)
    }

    func testDelayedWorkOnTheMainThreadGoesToTheMainQueue() {
        let ranOnMain = Locked<[Bool]>([])
        Scheduler.subscription.schedule(afterDelay: 0.01) {
            ranOnMain.withLock { $0.append(Thread.isMainThread && Scheduler.current === Scheduler.main) }
        }
        XCTAssertTrue(waitUntil { ranOnMain.value.count == 1 })
        XCTAssertEqual(ranOnMain.value, [true])
    }
}
