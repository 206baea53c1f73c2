import Foundation
import Schedulers
import Testing
import TestSupport

/// RACSchedulerSpec "+scheduler" (one-shot cases; the recurring ones are in
/// RepeatingTimerTests) and ReactiveSwift's QueueScheduler spec, plus the disposal contract.
@Suite(.ownThread, .timeLimit(.minutes(5))) struct QueueSchedulerTests {
    private static func futureDate() -> Date { Date(timeIntervalSinceNow: 0.01) }

    /// ReactiveSwift: "should run enqueued actions on a global queue".
    @Test func runsActionsOffTheMainThreadAsCurrent() {
        let scheduler = QueueScheduler(queue: .global())
        let seen = Locked<(ran: Bool, main: Bool, current: Scheduler?)>((false, true, nil))
        scheduler.schedule { seen.withLock { $0 = (true, Thread.isMainThread, Scheduler.current) } }
        #expect(waitUntil { seen.value.ran })
        #expect(!seen.value.main)
        #expect(seen.value.current === scheduler)
    }

    /// RAC: "should cancel scheduled blocks when disposed" (starting on the scheduler so nothing
    /// enqueued runs until the first block returns).
    @Test func cancelsScheduledBlocksWhenDisposed() {
        let scheduler = TargetQueueScheduler()
        let ran = Locked((first: false, second: false, disposableWasNil: true))
        scheduler.schedule {
            let disposable = scheduler.schedule { ran.withLock { $0.first = true } }
            ran.withLock { $0.disposableWasNil = disposable == nil }
            scheduler.schedule { ran.withLock { $0.second = true } }
            disposable?.dispose()
        }
        #expect(waitUntil { ran.value.second })
        #expect(!ran.value.disposableWasNil)
        #expect(!ran.value.first)
    }

    /// RAC: "should schedule future blocks".
    @Test func schedulesFutureBlocks() {
        let scheduler = TargetQueueScheduler()
        let start = Date()
        let ranAt = Locked<Date?>(nil)
        let date = Self.futureDate()
        scheduler.schedule(after: date) { ranAt.withLock { $0 = Date() } }
        #expect(waitUntil { ranAt.value != nil })
        #expect(ranAt.value! >= date)
        #expect(ranAt.value!.timeIntervalSince(start) >= 0.01)
    }

    /// RAC: "should cancel future blocks when disposed" (disposing from an action on the
    /// scheduler, as above: the block cannot start before the disposal, however far past its
    /// date a loaded machine lets the disposal come. Disposing from the test's thread 10 ms
    /// ahead of the date was a race: under ThreadSanitizer beside a busy core the block had
    /// already started, and a started action runs).
    @Test func cancelsFutureBlocksWhenDisposed() {
        let scheduler = TargetQueueScheduler()
        let ran = Locked((first: false, second: false, disposed: false))
        scheduler.schedule {
            let date = Self.futureDate()
            let disposable = scheduler.schedule(after: date) { ran.withLock { $0.first = true } }
            disposable?.dispose()
            ran.withLock { $0.disposed = disposable?.isDisposed == true }
            scheduler.schedule(after: date) { ran.withLock { $0.second = true } }
        }
        #expect(waitUntil { ran.value.second })
        #expect(ran.value.disposed)
        #expect(!ran.value.first)
    }

    @Test func afterDelayWaitsAtLeastTheDelay() {
        let scheduler = TargetQueueScheduler()
        let start = Date()
        let ranAt = Locked<Date?>(nil)
        scheduler.schedule(afterDelay: 0.02) { ranAt.withLock { $0 = Date() } }
        #expect(waitUntil { ranAt.value != nil })
        #expect(ranAt.value!.timeIntervalSince(start) >= 0.02)
    }

    /// ReactiveSwift: "should run enqueued actions serially on the given queue".
    @Test func runsEnqueuedActionsSeriallyOnASuspendedQueue() {
        let queue = DispatchQueue(label: "queue.suspended")
        let scheduler = QueueScheduler(queue: queue)
        queue.suspend()
        let values = Locked<[Int]>([])
        for index in 0..<5 {
            scheduler.schedule { values.withLock { $0.append(index) } }
        }
        #expect(values.value.isEmpty)
        queue.resume()
        #expect(waitUntil { values.value.count == 5 })
        #expect(values.value == [0, 1, 2, 3, 4])
    }

    /// ReactiveSwift: "should run enqueued actions after a given date".
    @Test func runsEnqueuedActionsAfterAGivenDateOnceResumed() {
        let queue = DispatchQueue(label: "queue.suspended.after")
        let scheduler = QueueScheduler(queue: queue)
        queue.suspend()
        let ran = Locked(false)
        scheduler.schedule(after: Date()) { ran.withLock { $0 = !Thread.isMainThread } }
        #expect(!ran.value)
        queue.resume()
        #expect(waitUntil { ran.value })
    }

    @Test func runsTenThousandActionsInFIFOOrder() {
        let scheduler = TargetQueueScheduler(name: "queue.fifo")
        let values = Locked<[Int]>([])
        for index in 0..<10_000 {
            scheduler.schedule { values.withLock { $0.append(index) } }
        }
        #expect(waitUntil { values.value.count == 10_000 })
        #expect(values.value == Array(0..<10_000))
    }

    /// A disposed action never starts and its closure is released before `dispose()` returns.
    @Test func disposedActionIsReleasedAtDisposal() {
        let queue = DispatchQueue(label: "queue.release")
        let scheduler = QueueScheduler(queue: queue)
        queue.suspend()
        defer { queue.resume() }
        let ran = Locked(false)
        var token: Token? = Token()
        let weak = Weak(token!)
        let disposable = scheduler.schedule { [token] in
            _ = token
            ran.withLock { $0 = true }
        }
        token = nil
        #expect(weak.object != nil)
        disposable?.dispose()
        #expect(weak.object == nil)
        #expect(disposable?.isDisposed == true)
    }

    /// A one-shot a year away, disposed, lets go of its closure at once, not in a year.
    @Test func farFutureDisposedOneShotIsReleasedAtOnce() {
        let scheduler = TargetQueueScheduler(name: "queue.year")
        var token: Token? = Token()
        let weak = Weak(token!)
        let disposable = scheduler.schedule(after: Date(timeIntervalSinceNow: 365 * 24 * 3600)) { [token] in
            _ = token
            Issue.record("a disposed action ran")
        }
        token = nil
        #expect(weak.object != nil)
        #expect(disposable?.isDisposed == false)
        disposable?.dispose()
        #expect(weak.object == nil)
        #expect(disposable?.isDisposed == true)
    }

    @Test func ranActionIsReleasedAndLaterDisposalIsHarmless() {
        let scheduler = TargetQueueScheduler()
        let ran = Locked(0)
        var token: Token? = Token()
        let weak = Weak(token!)
        let disposable = scheduler.schedule { [token] in
            _ = token
            ran.withLock { $0 += 1 }
        }
        token = nil
        #expect(waitUntil { ran.value == 1 && weak.object == nil })
        disposable?.dispose()
        disposable?.dispose()
        #expect(ran.value == 1)
    }

    /// A pending action keeps its scheduler alive until it runs; with nothing pending, the
    /// scheduler goes away with its last reference.
    @Test func pendingActionKeepsSchedulerAliveUntilItRuns() {
        let ran = Locked(false)
        var scheduler: TargetQueueScheduler? = TargetQueueScheduler(name: "queue.lifetime")
        let weak = Weak(scheduler!)
        // Held until the check: a test thread stalled past the 50 ms would find the action run
        // and the scheduler gone. The queue alone does not keep the scheduler.
        let queue = scheduler!.queue
        queue.suspend()
        scheduler!.schedule(afterDelay: 0.05) { ran.withLock { $0 = Scheduler.current != nil } }
        scheduler = nil
        #expect(weak.object != nil)
        queue.resume()
        #expect(waitUntil { ran.value })
        #expect(waitUntil { weak.object == nil })
    }

    @Test func disposingTheOnlyPendingActionReleasesTheScheduler() {
        var scheduler: TargetQueueScheduler? = TargetQueueScheduler(name: "queue.lifetime.disposed")
        let weak = Weak(scheduler!)
        let disposable = scheduler!.schedule(after: .distantFuture) { Issue.record("a disposed action ran") }
        scheduler = nil
        #expect(weak.object != nil)
        disposable?.dispose()
        #expect(weak.object == nil)
    }

    @Test func unusedSchedulerIsReleased() {
        var scheduler: QueueScheduler? = QueueScheduler(queue: .global())
        let weak = Weak(scheduler!)
        scheduler = nil
        #expect(weak.object == nil)
    }

    /// Disposing from other threads while the queue runs: every action either runs or is
    /// disposed before it starts; none runs after its disposal has returned on the queue itself.
    @Test func raceBetweenDisposalAndRunningLeavesEachActionRunOrNot() {
        let scheduler = TargetQueueScheduler(name: "queue.race")
        let count = 2000
        let state = Locked((ran: Set<Int>(), disposedBeforeRun: Set<Int>(), checked: 0))
        let disposables = Locked<[Int: any Disposable]>([:])
        for index in 0..<count {
            let disposable = scheduler.schedule { state.withLock { _ = $0.ran.insert(index) } }!
            disposables.withLock { $0[index] = disposable }
        }
        DispatchQueue.concurrentPerform(iterations: count / 2) { half in
            let index = half * 2
            let disposable = disposables.withLock { $0[index]! }
            disposable.dispose()
            // Ask the queue (serial) whether it ran: if it had not yet, it never will.
            scheduler.queue.async {
                state.withLock {
                    if !$0.ran.contains(index) { $0.disposedBeforeRun.insert(index) }
                    $0.checked += 1
                }
            }
        }
        #expect(waitUntil { state.value.checked == count / 2 })
        let final = Locked(false)
        scheduler.schedule { final.withLock { $0 = true } }
        #expect(waitUntil { final.value })
        let result = state.value
        #expect(result.ran.isDisjoint(with: result.disposedBeforeRun))
        #expect(result.ran.count + result.disposedBeforeRun.count == count)
    }
}
