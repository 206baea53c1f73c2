import Foundation
import Schedulers
import Testing
import TestSupport

/// Weak references that must become nil: every scheduled closure, and everything it captured, is
/// released once it has run or been disposed, and pending work never keeps a TestScheduler alive.
@Suite(.ownThread, .timeLimit(.minutes(5))) struct LifetimeTests {
    static func queueSchedulers() -> [QueueScheduler] {
        [
            QueueScheduler(name: "lifetime.serial", queue: DispatchQueue(label: "lifetime.serial")),
            TargetQueueScheduler(name: "lifetime.target", targetQueue: .global()),
        ]
    }

    @Test func oneShotIsReleasedAfterItRuns() {
        for scheduler in Self.queueSchedulers() {
            var token: Token? = Token()
            let weak = Weak(token!)
            let ran = Locked(false)
            // The disposable is kept on purpose: holding it must not keep the closure alive.
            let disposable = scheduler.schedule { [token] in
                _ = token
                ran.withLock { $0 = true }
            }
            token = nil
            #expect(waitUntil { ran.value })
            #expect(waitUntil { weak.object == nil }, "\(scheduler): closure kept after running")
            #expect(disposable != nil)
        }
    }

    @Test func oneShotDueInAYearIsReleasedWhenDisposed() {
        for scheduler in Self.queueSchedulers() {
            var token: Token? = Token()
            let weak = Weak(token!)
            let disposable = scheduler.schedule(after: Date(timeIntervalSinceNow: 365 * 86_400)) { [token] in _ = token }
            token = nil
            #expect(weak.object != nil)
            disposable!.dispose()
            // Released before `dispose()` returns, not at the due date.
            #expect(weak.object == nil, "\(scheduler): closure kept after dispose")
        }
    }

    @Test func timerIsReleasedWhenDisposed() {
        for scheduler in Self.queueSchedulers() {
            var token: Token? = Token()
            let weak = Weak(token!)
            let ticked = Locked(0)
            var disposable = scheduler.schedule(after: Date(), repeatingEvery: 0.001) { [token] in
                _ = token
                ticked.withLock { $0 += 1 }
            }
            let weakTimer = Weak(disposable! as AnyObject)
            token = nil
            #expect(waitUntil { ticked.value >= 2 })
            disposable!.dispose()
            // A tick running on the queue at this moment may still hold the closure briefly.
            #expect(waitUntil { weak.object == nil }, "\(scheduler): timer closure kept after dispose")
            disposable = nil
            // The timer object itself goes once Dispatch has finished cancelling its source.
            #expect(waitUntil { weakTimer.object == nil }, "\(scheduler): timer kept after dispose")
        }
    }

    @Test func timerDueInTenYearsIsReleasedWhenDisposed() {
        for scheduler in Self.queueSchedulers() {
            var token: Token? = Token()
            let weak = Weak(token!)
            let disposable = scheduler.schedule(
                after: Date(timeIntervalSinceNow: 10 * 365 * 86_400), repeatingEvery: 3600
            ) { [token] in _ = token }
            token = nil
            disposable!.dispose()
            #expect(weak.object == nil, "\(scheduler): timer closure kept after dispose")
        }
    }

    @Test func recursiveChainIsReleasedWhenDisposed() {
        for scheduler: Scheduler in Self.queueSchedulers() + [TestScheduler()] {
            var token: Token? = Token()
            let weak = Weak(token!)
            let runs = Locked(0)
            // The chain reschedules itself forever; the disposable is kept, as a caller would.
            let disposable = scheduler.scheduleRecursive { [token] reschedule in
                _ = token
                runs.withLock { $0 += 1 }
                reschedule()
            }
            token = nil
            if let test = scheduler as? TestScheduler {
                test.step(10)
            } else {
                #expect(waitUntil { runs.value >= 10 })
            }
            disposable!.dispose()
            #expect(waitUntil { weak.object == nil }, "\(scheduler): recursive closure kept after dispose")
            _ = disposable
        }
    }

    @Test func recursiveChainIsReleasedWhenDisposedBetweenIterations() {
        let scheduler = TestScheduler()
        var token: Token? = Token()
        let weak = Weak(token!)
        let disposable = scheduler.scheduleRecursive { [token] reschedule in
            _ = token
            reschedule()
        }
        token = nil
        scheduler.step(3)
        disposable!.dispose()
        // Nothing is running: released before `dispose()` returned.
        #expect(weak.object == nil)
        #expect(scheduler.pendingCount == 0)
        _ = disposable
    }

    /// Dropping a TestScheduler with a pending one-shot, a repeating action and a recursive chain
    /// releases all three without running them, whether or not the test kept the disposables.
    @Test(arguments: [false, true])
    func testSchedulerWithPendingWorkIsReleased(keepingDisposables: Bool) {
        var scheduler: TestScheduler? = TestScheduler()
        let weakScheduler = Weak(scheduler!)
        var tokens: [Token]? = [Token(), Token(), Token()]
        let weakTokens = tokens!.map { Weak($0) }
        let ran = Locked(0)
        var disposables: [(any Disposable)?] = []
        do {
            let (a, b, c) = (tokens![0], tokens![1], tokens![2])
            disposables.append(scheduler!.schedule(afterDelay: 10) { _ = a; ran.withLock { $0 += 1 } })
            disposables.append(scheduler!.schedule(after: scheduler!.now.addingTimeInterval(5), repeatingEvery: 1) {
                _ = b; ran.withLock { $0 += 1 }
            })
            disposables.append(scheduler!.scheduleRecursive { reschedule in
                _ = c
                ran.withLock { $0 += 1 }
                reschedule()
            })
            scheduler!.step(2)  // two iterations of the chain; a third is pending
        }
        #expect(ran.value == 2)
        tokens = nil
        if !keepingDisposables { disposables = [] }
        scheduler = nil
        #expect(weakScheduler.object == nil, "pending work kept the TestScheduler alive")
        for (index, weak) in weakTokens.enumerated() {
            #expect(weak.object == nil, "capture \(index) kept after the TestScheduler was deinitialised")
        }
        #expect(ran.value == 2)
        _ = disposables
    }

    @Test func queueSchedulerWithNoPendingWorkIsDeinitialised() {
        var scheduler: TargetQueueScheduler? = TargetQueueScheduler(name: "lifetime.idle", targetQueue: .global())
        let weak = Weak(scheduler!)
        let ran = Locked(false)
        let disposable = scheduler!.schedule { ran.withLock { $0 = true } }
        let cancelled = scheduler!.schedule(after: Date(timeIntervalSinceNow: 3600)) {}
        let timer = scheduler!.schedule(after: Date(), repeatingEvery: 1) {}
        #expect(waitUntil { ran.value })
        cancelled!.dispose()
        timer!.dispose()
        scheduler = nil
        // Nothing pending (the disposables are still held): the scheduler goes.
        #expect(waitUntil { weak.object == nil }, "an idle QueueScheduler was kept alive")
        _ = (disposable, cancelled, timer)
    }

    @Test func plainQueueSchedulerIsDeinitialisedWhenItsLastReferenceGoes() {
        var scheduler: QueueScheduler? = QueueScheduler(queue: DispatchQueue(label: "lifetime.plain"))
        let weak = Weak(scheduler!)
        scheduler = nil
        #expect(weak.object == nil)
    }
}
