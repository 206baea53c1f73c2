import Foundation
import Schedulers
import Testing
import TestSupport

/// `scheduleRecursive`: RACSchedulerSpec "-scheduleRecursiveBlock:" with a synchronous scheduler
/// and with an asynchronous one (a background TargetQueueScheduler here; the same cases on
/// `Scheduler.main` are XCTests in MainSchedulerTests), plus depth, multiple calls per run,
/// disposal and stack growth.
@Suite(.ownThread, .timeLimit(.minutes(5))) struct RecursiveSchedulingTests {
    // MARK: With a synchronous scheduler (RAC)

    @Test func synchronousBehavesLikeANormalBlockWhenItDoesNotRecurse() {
        let executed = Locked(0)
        let disposable = Scheduler.immediate.scheduleRecursive { _ in executed.withLock { $0 += 1 } }
        #expect(executed.value == 1)
        #expect(disposable == nil)
    }

    @Test func synchronousReschedulesItselfAfterTheCallerCompletes() {
        let count = Locked(0)
        let ranEarly = Locked(false)
        Scheduler.immediate.scheduleRecursive { reschedule in
            let thisCount = count.withLock { $0 += 1; return $0 }
            if thisCount < 3 {
                reschedule()
                // Only scheduled, not run yet.
                if count.value != thisCount { ranEarly.withLock { $0 = true } }
            }
        }
        #expect(count.value == 3)
        #expect(!ranEarly.value)
    }

    /// RAC unrolled 100,000; a million here, with the stack flat throughout.
    @Test func synchronousUnrollsAMillionSelfReschedules() {
        let depth = stressCount(1_000_000)
        let probe = StackProbe()
        let count = Locked(0)
        Scheduler.immediate.scheduleRecursive { reschedule in
            probe.record()
            if count.withLock({ $0 += 1; return $0 }) < depth { reschedule() }
        }
        #expect(count.value == depth)
        #expect(probe.spread < StackProbe.allowedSpread)
    }

    @Test func synchronousRunsEveryRescheduleCalledInOneRun() {
        let count = Locked(0)
        Scheduler.immediate.scheduleRecursive { reschedule in
            // Runs 1, 2 and 3 each ask twice: 1 + 2 * 3 runs in all.
            if count.withLock({ $0 += 1; return $0 }) <= 3 {
                reschedule()
                reschedule()
            }
        }
        #expect(count.value == 7)
    }

    /// A reschedule made after the run has returned (from another thread) runs it again.
    @Test func synchronousReschedulesWhenInvokedLater() {
        let background = TargetQueueScheduler(name: "recursive.later")
        let count = Locked(0)
        // Held until the first run is counted: a stalled test thread must not see the second.
        background.queue.suspend()
        Scheduler.immediate.scheduleRecursive { reschedule in
            let thisCount = count.withLock { $0 += 1; return $0 }
            if thisCount < 3 {
                background.schedule(afterDelay: 0.01) { reschedule() }
            }
        }
        #expect(count.value == 1)
        background.queue.resume()
        #expect(waitUntil { count.value == 3 })
    }

    /// A `reschedule` kept and called after the chain has finished, on the thread that ran it,
    /// runs the action again at once (the chain's "am I inside my own loop?" slot is cleared when
    /// the loop ends, or the call would be counted for a loop that is gone and never run).
    @Test func synchronousRescheduleCalledLaterOnTheSameThreadRunsAtOnce() {
        let count = Locked(0)
        let saved = Locked<(@Sendable () -> Void)?>(nil)
        Scheduler.immediate.scheduleRecursive { reschedule in
            count.withLock { $0 += 1 }
            saved.withLock { $0 = reschedule }
        }
        #expect(count.value == 1)
        saved.value?()
        #expect(count.value == 2)
        saved.value?()
        #expect(count.value == 3)
    }

    /// Two immediate chains, one started inside the other's action: each runs exactly the
    /// reschedules asked of it, whether the outer one's `reschedule` is called from its own action
    /// or from inside the inner chain's, and none runs before the action that asked returns.
    @Test func synchronousNestedChainsEachRunTheirOwnReschedules() {
        let outerRuns = Locked(0)
        let innerRuns = Locked(0)
        let ranEarly = Locked(false)
        Scheduler.immediate.scheduleRecursive { rescheduleOuter in
            let outer = outerRuns.withLock { $0 += 1; return $0 }
            guard outer <= 3 else { return }
            let innerThisRun = Locked(0)
            Scheduler.immediate.scheduleRecursive { rescheduleInner in
                innerRuns.withLock { $0 += 1 }
                let inner = innerThisRun.withLock { $0 += 1; return $0 }
                if inner < 4 { rescheduleInner() }
                if inner == 2 {
                    rescheduleOuter()  // from inside the inner chain
                    if outerRuns.value != outer { ranEarly.withLock { $0 = true } }
                }
                if innerThisRun.value != inner { ranEarly.withLock { $0 = true } }
            }
            rescheduleOuter()  // from its own action
            if outerRuns.value != outer { ranEarly.withLock { $0 = true } }
        }
        // Outer runs 1 to 3 each ask twice: 1 + 2 × 3 runs; each of them starts 4 inner runs.
        #expect(outerRuns.value == 7)
        #expect(innerRuns.value == 12)
        #expect(!ranEarly.value)
    }

    // MARK: With an asynchronous scheduler (RAC)

    @Test func asynchronousBehavesLikeANormalBlockWhenItDoesNotRecurse() {
        let scheduler = TargetQueueScheduler(name: "recursive.async")
        let executed = Locked(0)
        let disposable = scheduler.scheduleRecursive { _ in executed.withLock { $0 += 1 } }
        #expect(disposable != nil)
        #expect(waitUntil { executed.value == 1 })
    }

    @Test func asynchronousReschedulesItselfAfterTheCallerCompletes() {
        let scheduler = TargetQueueScheduler(name: "recursive.async")
        let count = Locked(0)
        let ranEarly = Locked(false)
        let wrongCurrent = Locked(false)
        scheduler.scheduleRecursive { reschedule in
            if Scheduler.current !== scheduler { wrongCurrent.withLock { $0 = true } }
            let thisCount = count.withLock { $0 += 1; return $0 }
            if thisCount < 3 {
                reschedule()
                if count.value != thisCount { ranEarly.withLock { $0 = true } }
            }
        }
        #expect(waitUntil { count.value == 3 })
        #expect(!ranEarly.value)
        #expect(!wrongCurrent.value)
    }

    @Test func asynchronousReschedulesWhenInvokedAsynchronously() {
        let scheduler = TargetQueueScheduler(name: "recursive.async")
        let asynchronous = TargetQueueScheduler(name: "recursive.async.other")
        let count = Locked(0)
        scheduler.scheduleRecursive { reschedule in
            asynchronous.schedule(after: Date(timeIntervalSinceNow: 0.01)) {
                let thisCount = count.withLock { $0 += 1; return $0 }
                if thisCount < 3 { reschedule() }
            }
        }
        #expect(waitUntil { count.value == 3 })
    }

    @Test func asynchronousDoesNotRescheduleItselfWhenDisposed() {
        let scheduler = TargetQueueScheduler(name: "recursive.async")
        let count = Locked(0)
        let handle = Locked<(any Disposable)?>(nil)
        let ready = DispatchSemaphore(value: 0)
        scheduler.schedule { ready.wait() }  // holds the first run back
        let disposable = scheduler.scheduleRecursive { reschedule in
            count.withLock { $0 += 1 }
            handle.value?.dispose()
            reschedule()
        }
        handle.withLock { $0 = disposable }
        ready.signal()
        #expect(waitUntil { count.value == 1 })
        expectQuiet(scheduler)
        #expect(count.value == 1)
        #expect(disposable?.isDisposed == true)
    }

    // MARK: Beyond RAC

    @Test func asynchronousRunsEveryRescheduleCalledInOneRun() {
        let scheduler = TargetQueueScheduler(name: "recursive.multiple")
        let count = Locked(0)
        scheduler.scheduleRecursive { reschedule in
            if count.withLock({ $0 += 1; return $0 }) <= 3 {
                reschedule()
                reschedule()
            }
        }
        #expect(waitUntil { count.value == 7 })
        expectQuiet(scheduler)
        #expect(count.value == 7)
    }

    @Test(.timeLimit(.minutes(5)))
    func aMillionSelfReschedulesOnATargetQueueScheduler() {
        let scheduler = TargetQueueScheduler(name: "recursive.million")
        let depth = stressCount(1_000_000)
        let count = Locked(0)
        let done = DispatchSemaphore(value: 0)
        scheduler.scheduleRecursive { reschedule in
            let thisCount = count.withLock { $0 += 1; return $0 }
            if thisCount < depth { reschedule() } else { done.signal() }
        }
        #expect(done.wait(timeout: .now() + 120) == .success)  // 26 s under TSan, portable, beside a busy core
        #expect(count.value == depth)
    }

    /// Disposing from outside stops the chain: at most the run in progress completes.
    @Test func disposalFromOutsideStopsTheChain() {
        let scheduler = TargetQueueScheduler(name: "recursive.dispose")
        let count = Locked(0)
        var token: Token? = Token()
        let weak = Weak(token!)
        var disposable = scheduler.scheduleRecursive { [token] reschedule in
            _ = token
            count.withLock { $0 += 1 }
            reschedule()
        }
        token = nil
        #expect(waitUntil { count.value >= 100 })
        disposable?.dispose()
        let atDispose = count.value
        #expect(disposable?.isDisposed == true)
        expectQuiet(scheduler)
        #expect(count.value <= atDispose + 1)
        // Dropped and disposed, nothing keeps the action any more.
        disposable = nil
        #expect(waitUntil { weak.object == nil })
    }

    @Test func disposalBeforeTheFirstRunMeansItNeverRuns() {
        let queue = DispatchQueue(label: "recursive.suspended")
        let scheduler = QueueScheduler(queue: queue)
        queue.suspend()
        let count = Locked(0)
        let disposable = scheduler.scheduleRecursive { reschedule in
            count.withLock { $0 += 1 }
            reschedule()
        }
        disposable?.dispose()
        queue.resume()
        expectQuiet(scheduler)
        #expect(count.value == 0)
    }

    // MARK: Disposal cancels every requested iteration (issue 12, defect 2)

    /// An iteration that calls `reschedule` twice has two iterations pending: disposing the chain
    /// cancels both, so nothing is left pending and the action's captures are released before
    /// `dispose()` returns.
    @Test func disposalCancelsEveryPendingIterationOnATestScheduler() {
        let scheduler = TestScheduler()
        let count = Locked(0)
        var token: Token? = Token()
        let weak = Weak(token!)
        let disposable = scheduler.scheduleRecursive { [token] reschedule in
            _ = token
            if count.withLock({ $0 += 1; return $0 }) == 1 {
                reschedule()
                reschedule()
            }
        }
        token = nil
        scheduler.step()
        #expect(count.value == 1)
        #expect(scheduler.pendingCount == 2)
        disposable?.dispose()
        #expect(scheduler.pendingCount == 0)
        #expect(weak.object == nil)
        scheduler.stepAll()
        #expect(count.value == 1)
    }

    /// The same on a queue scheduler (serial and concurrent queue; the queue scheduler itself and
    /// a subclass that goes through the generic chain): two iterations requested after the first
    /// run returned wait behind a suspension when the chain is disposed; neither runs, and the
    /// action is released at disposal.
    @Test(arguments: [false, true])
    func disposalCancelsEveryPendingIterationOnAQueueScheduler(concurrent: Bool) {
        let queue = DispatchQueue(label: "recursive.twice", attributes: concurrent ? [.concurrent] : [])
        for scheduler in [QueueScheduler(queue: queue), ForwardingQueueScheduler(queue: queue)] {
            let count = Locked(0)
            let stored = Locked<(@Sendable () -> Void)?>(nil)
            var token: Token? = Token()
            let weak = Weak(token!)
            let disposable = scheduler.scheduleRecursive { [token] reschedule in
                _ = token
                count.withLock { $0 += 1 }
                stored.withLock { $0 = reschedule }
            }
            token = nil
            #expect(waitUntil { count.value == 1 })
            // The first run has returned once this barrier has run.
            queue.sync(flags: .barrier) {}
            queue.suspend()
            var reschedule = stored.withLock { $0.take() }
            reschedule?()
            reschedule?()
            reschedule = nil
            disposable?.dispose()
            #expect(weak.object == nil)
            queue.resume()
            expectQuiet(scheduler)
            #expect(count.value == 1)
        }
    }

    /// A queue scheduler on a concurrent queue posts its chain itself: every reschedule called in
    /// a run is still performed, once each, and the runs are counted exactly.
    @Test func aQueueSchedulerOnAConcurrentQueueRunsEveryReschedule() {
        let scheduler = QueueScheduler(queue: DispatchQueue(label: "recursive.concurrent", attributes: .concurrent))
        let count = Locked(0)
        scheduler.scheduleRecursive { reschedule in
            if count.withLock({ $0 += 1; return $0 }) <= 3 {
                reschedule()
                reschedule()
            }
        }
        #expect(waitUntil { count.value == 7 })
        expectQuiet(scheduler)
        #expect(count.value == 7)
    }

    /// Disposal racing with overlapping runs (a concurrent queue, two reschedules per run) and
    /// with `reschedule` calls from another thread: once the queue has drained, no run starts
    /// any more and the action has been released.
    @Test func disposalRacingWithRunsAndOutsideReschedulesOnAConcurrentQueue() {
        let queue = DispatchQueue(label: "recursive.race", attributes: .concurrent)
        let scheduler = QueueScheduler(queue: queue)
        for _ in 0..<100 {
            let runs = Locked(0)
            let stored = Locked<(@Sendable () -> Void)?>(nil)
            var token: Token? = Token()
            let weak = Weak(token!)
            let disposable = scheduler.scheduleRecursive { [token] reschedule in
                _ = token
                stored.withLock { $0 = reschedule }
                if runs.withLock({ $0 += 1; return $0 }) < 50 {
                    reschedule()
                    reschedule()
                }
            }
            token = nil
            #expect(waitUntil { stored.value != nil })
            let outside = DispatchGroup()
            DispatchQueue.global().async(group: outside) {
                for _ in 0..<20 { stored.value?() }
            }
            disposable?.dispose()
            #expect(outside.wait(timeout: .now() + 60) == .success)
            stored.withLock { $0 = nil }
            queue.sync(flags: .barrier) {}
            let drained = runs.value
            queue.sync(flags: .barrier) {}
            #expect(runs.value == drained)
            #expect(disposable?.isDisposed == true)
            #expect(waitUntil { weak.object == nil })
        }
    }

    /// A chain that ends by itself releases its action even while its disposable is still held.
    @Test(arguments: [false, true])
    func aFinishedChainReleasesItsActionWhileItsDisposableIsHeld(subclass: Bool) {
        let queue = DispatchQueue(label: "recursive.finished")
        let scheduler = subclass ? ForwardingQueueScheduler(queue: queue) : QueueScheduler(queue: queue)
        let count = Locked(0)
        var token: Token? = Token()
        let weak = Weak(token!)
        let disposable = scheduler.scheduleRecursive { [token] reschedule in
            _ = token
            if count.withLock({ $0 += 1; return $0 }) < 3 { reschedule() }
        }
        token = nil
        #expect(waitUntil { count.value == 3 })
        #expect(waitUntil { weak.object == nil })
        #expect(disposable?.isDisposed == false)
    }

    /// From inside a queue action the subscription scheduler runs inline; a chain of self
    /// reschedules on it must still not grow the stack (a worker thread's stack is small).
    @Test func recursionOnTheSubscriptionSchedulerInsideAQueueActionIsFlat() {
        let scheduler = TargetQueueScheduler(name: "recursive.subscription")
        // A tenth under a sanitizer: under ThreadSanitizer in the portable build, beside a busy
        // core, 17,239 of 100,000 ran in 30 s. Ten thousand frames would still spread the stack
        // by megabytes if the recursion grew it.
        let depth = stressCount(100_000)
        let probe = StackProbe()
        let result = Locked<(count: Int, wrongCurrent: Int, returned: Bool)>((0, 0, false))
        scheduler.schedule {
            Scheduler.subscription.scheduleRecursive { reschedule in
                probe.record()
                let thisCount = result.withLock { state -> Int in
                    state.count += 1
                    if Scheduler.current !== scheduler { state.wrongCurrent += 1 }
                    return state.count
                }
                if thisCount < depth { reschedule() }
            }
            result.withLock { $0.returned = true }
        }
        #expect(waitUntil(timeout: 120) { result.value.returned })
        // Inline: the whole chain ran before the outer action returned.
        #expect(result.value.count == depth)
        #expect(result.value.wrongCurrent == 0)
        #expect(probe.spread < StackProbe.allowedSpread)
    }
}

/// Watches the stack addresses an action runs at, on one thread: `spread` is how far apart the deepest and
/// shallowest were. Recursion that grows the stack makes it grow with the depth.
final class StackProbe: Sendable {
    /// Much less than one frame per iteration of a 10,000-deep chain would need.
    static let allowedSpread = 64 * 1024

    private let range = Locked<(low: UInt, high: UInt)>((.max, 0))

    @inline(never)
    func record() {
        var marker = 0
        let address = withUnsafeMutablePointer(to: &marker) { UInt(bitPattern: $0) }
        range.withLock {
            $0.low = min($0.low, address)
            $0.high = max($0.high, address)
        }
    }

    var spread: Int {
        let range = range.value
        return range.high >= range.low ? Int(range.high - range.low) : 0
    }
}

/// Lets the serial `scheduler` run for a while longer (an observation window for "nothing more
/// happens", not synchronisation): returns once an action scheduled 50 ms from now has run.
func expectQuiet(_ scheduler: Scheduler, sourceLocation: SourceLocation = #_sourceLocation) {
    let watched = Locked(false)
    scheduler.schedule(afterDelay: 0.05) { watched.withLock { $0 = true } }
    #expect(waitUntil { watched.value }, sourceLocation: sourceLocation)
}

/// A subclass that overrides `schedule(_:)`, so `scheduleRecursive` must go through it (the
/// generic chain) rather than a queue scheduler's own fast path.
final class ForwardingQueueScheduler: QueueScheduler, @unchecked Sendable {
    override func schedule(_ action: @escaping @Sendable () -> Void) -> (any Disposable)? {
        super.schedule(action)
    }
}
