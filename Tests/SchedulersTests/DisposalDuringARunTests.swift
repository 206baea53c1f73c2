import Foundation
import Schedulers
import TestSupport
import Testing

/// Disposing a recursive chain or a repeating timer while one of its runs is in progress.
///
/// The running action's captures cannot be released before that run returns: its code is using
/// them. What is promised, and checked here, is that they are released as soon as it returns,
/// on every scheduler that has a disposable (the immediate scheduler returns none, and cannot
/// repeat), and that nothing else (a kept disposable, a kept `reschedule` closure) holds them.
@Suite(.ownThread, .timeLimit(.minutes(5))) struct DisposalDuringARunTests {
    /// A queue scheduler, a subclass of one (which gets the generic chain, built on `schedule`),
    /// and a target-queue scheduler.
    private static func queueSchedulers() -> [QueueScheduler] {
        [
            QueueScheduler(name: "disposal.serial", queue: DispatchQueue(label: "disposal.serial")),
            RecordingQueueScheduler(),
            TargetQueueScheduler(name: "disposal.target", targetQueue: .global()),
        ]
    }

    /// Waits for the run in progress on `scheduler`'s serial queue to have returned.
    private static func afterTheRun(on scheduler: QueueScheduler) {
        scheduler.queue.sync {}
    }

    // MARK: scheduleRecursive

    @Test func aChainDisposedFromInsideItsRunReleasesTheActionWhenTheRunReturns() throws {
        for scheduler: Scheduler in Self.queueSchedulers() + [TestScheduler()] {
            var token: Token? = Token()
            let weak = Weak(token!)
            let chain = Locked<(any Disposable)?>(nil)
            let aliveDuringTheRun = Locked<Bool?>(nil)
            let runs = Locked(0)
            let start = DispatchSemaphore(value: 0)
            let disposable = scheduler.scheduleRecursive { [token] reschedule in
                _ = token
                if !(scheduler is TestScheduler) { start.wait() }  // until `chain` is set
                runs.withLock { $0 += 1 }
                reschedule()
                chain.value?.dispose()
                aliveDuringTheRun.withLock { $0 = weak.object != nil }
            }
            chain.withLock { $0 = disposable }
            token = nil
            if let test = scheduler as? TestScheduler {
                test.advance(by: 1)
                #expect(test.pendingCount == 0)
            } else {
                start.signal()
                #expect(waitUntil { aliveDuringTheRun.value != nil })
                Self.afterTheRun(on: scheduler as! QueueScheduler)
            }
            #expect(aliveDuringTheRun.value == true, "\(scheduler): released while the action was running")
            #expect(weak.object == nil, "\(scheduler): the action outlived the run it was disposed in")
            #expect(runs.value == 1, "\(scheduler)")
            _ = disposable
        }
    }

    /// Disposed from another thread while a run is blocked: it stays alive until that run
    /// returns, then goes.
    @Test func aChainDisposedFromAnotherThreadDuringARunReleasesTheActionWhenTheRunReturns() throws {
        for scheduler in Self.queueSchedulers() {
            var token: Token? = Token()
            let weak = Weak(token!)
            let running = DispatchSemaphore(value: 0)
            let proceed = DispatchSemaphore(value: 0)
            let runs = Locked(0)
            let scheduled = scheduler.scheduleRecursive { [token] reschedule in
                _ = token
                runs.withLock { $0 += 1 }
                running.signal()
                proceed.wait()
                reschedule()
            }
            let disposable = try #require(scheduled)
            token = nil
            #expect(running.wait(timeout: .now() + 60) == .success)
            disposable.dispose()
            #expect(weak.object != nil, "\(scheduler): released while the action was running")
            proceed.signal()
            Self.afterTheRun(on: scheduler)
            #expect(weak.object == nil, "\(scheduler): the action outlived the run")
            #expect(runs.value == 1)
        }
    }

    /// A `reschedule` closure kept after the chain is disposed does not keep the action.
    @Test func aKeptRescheduleClosureDoesNotKeepTheActionOfADisposedChain() throws {
        for scheduler: Scheduler in Self.queueSchedulers() + [TestScheduler()] {
            var token: Token? = Token()
            let weak = Weak(token!)
            let kept = Locked<(@Sendable () -> Void)?>(nil)
            let scheduled = scheduler.scheduleRecursive { [token] reschedule in
                _ = token
                kept.withLock { $0 = reschedule }
            }
            let disposable = try #require(scheduled)
            token = nil
            if let test = scheduler as? TestScheduler {
                test.advance(by: 0)
            } else {
                #expect(waitUntil { kept.value != nil })
                Self.afterTheRun(on: scheduler as! QueueScheduler)
            }
            #expect(weak.object != nil, "\(scheduler): a live chain lost its action")
            disposable.dispose()
            #expect(weak.object == nil, "\(scheduler): the kept reschedule closure kept the action")
            // Calling it now does nothing.
            kept.value?()
            if let test = scheduler as? TestScheduler { #expect(test.pendingCount == 0) }
            kept.withLock { $0 = nil }
        }
    }

    // MARK: Repeating timers

    @Test func aTimerDisposedFromInsideItsTickReleasesTheActionWhenTheTickReturns() throws {
        for scheduler: Scheduler in Self.queueSchedulers() + [TestScheduler()] {
            var token: Token? = Token()
            let weak = Weak(token!)
            let timer = Locked<(any Disposable)?>(nil)
            let aliveDuringTheTick = Locked<Bool?>(nil)
            let ticks = Locked(0)
            let start = DispatchSemaphore(value: 0)
            let disposable = scheduler.schedule(after: .zero, repeatingEvery: .milliseconds(1)) { [token] in
                _ = token
                if !(scheduler is TestScheduler), ticks.value == 0 { start.wait() }
                ticks.withLock { $0 += 1 }
                timer.value?.dispose()
                aliveDuringTheTick.withLock { $0 = weak.object != nil }
            }
            timer.withLock { $0 = disposable }
            token = nil
            if let test = scheduler as? TestScheduler {
                test.advance(by: 1)
                #expect(test.pendingCount == 0)
            } else {
                start.signal()
                #expect(waitUntil { aliveDuringTheTick.value != nil })
                Self.afterTheRun(on: scheduler as! QueueScheduler)
            }
            #expect(aliveDuringTheTick.value == true, "\(scheduler): released while the action was running")
            #expect(weak.object == nil, "\(scheduler): the action outlived the tick it was disposed in")
            #expect(ticks.value == 1, "\(scheduler)")
            _ = disposable
        }
    }
}
