import Foundation
import Schedulers
import Testing
import TestSupport

/// RAC's RACTestTestExampleScheduler: a QueueScheduler subclass that overrides only `schedule(_:)`
/// and `schedule(after:_:)`, running each action through `performAsCurrentScheduler`, with no
/// disposables, as `RACQueueScheduler+Subclass.h` intends.
final class TestExampleScheduler: QueueScheduler, @unchecked Sendable {
    init(queue: DispatchQueue) {
        super.init(name: nil, queue: queue)
    }

    @discardableResult
    override func schedule(_ action: @escaping @Sendable () -> Void) -> (any Disposable)? {
        queue.async { self.performAsCurrentScheduler(action) }
        return nil
    }

    @discardableResult
    override func schedule(after date: Date, _ action: @escaping @Sendable () -> Void) -> (any Disposable)? {
        queue.asyncAfter(deadline: .now() + max(0, date.timeIntervalSinceNow)) { self.performAsCurrentScheduler(action) }
        return nil
    }
}

/// RACSchedulerSpec "subclassing", plus what a subclass inherits from the base class.
@Suite(.ownThread, .timeLimit(.minutes(5))) struct SubclassingTests {
    private let scheduler = TestExampleScheduler(queue: .global())

    /// RAC: "should invoke blocks scheduled with -schedule:".
    @Test func invokesBlocksScheduledWithSchedule() {
        let invoked = Locked(false)
        scheduler.schedule { invoked.withLock { $0 = true } }
        #expect(waitUntil { invoked.value })
    }

    /// RAC: "should invoke blocks scheduled with -after:schedule:".
    @Test func invokesBlocksScheduledWithAfter() {
        let invoked = Locked(false)
        scheduler.schedule(after: Date(timeIntervalSinceNow: 0.01)) { invoked.withLock { $0 = true } }
        #expect(waitUntil { invoked.value })
    }

    /// RAC: "should set a valid current scheduler".
    @Test func setsAValidCurrentScheduler() {
        let current = Locked<Scheduler?>(nil)
        scheduler.schedule { current.withLock { $0 = Scheduler.current } }
        #expect(waitUntil { current.value != nil })
        #expect(current.value === scheduler)
        #expect(Scheduler.current == nil)
    }

    /// Many actions on a concurrent queue at once: each sees the subclass as current, and the
    /// value is restored on every worker thread afterwards.
    @Test func currentIsRightOnEveryWorkerThread() {
        let count = 1000
        let results = Locked((runs: 0, wrong: 0))
        let leaks = Locked(0)
        for _ in 0..<count {
            scheduler.schedule {
                let right = Scheduler.current === scheduler
                results.withLock {
                    $0.runs += 1
                    if !right { $0.wrong += 1 }
                }
            }
            scheduler.queue.async { if Scheduler.current != nil { leaks.withLock { $0 += 1 } } }
        }
        #expect(waitUntil { results.value.runs == count })
        #expect(results.value.wrong == 0)
        #expect(leaks.value == 0)
    }

    /// The base `schedule(afterDelay:)` goes through the subclass's `schedule(after:)`.
    @Test func afterDelayUsesTheOverriddenAfter() {
        let invoked = Locked<Scheduler?>(nil)
        let disposable = scheduler.schedule(afterDelay: 0.01) { invoked.withLock { $0 = Scheduler.current } }
        #expect(disposable == nil)  // the subclass returns none
        #expect(waitUntil { invoked.value != nil })
        #expect(invoked.value === scheduler)
    }

    /// The base `scheduleRecursive` is built on the subclass's `schedule(_:)`.
    @Test func scheduleRecursiveUsesTheOverriddenSchedule() {
        let count = Locked((runs: 0, wrongCurrent: 0))
        scheduler.scheduleRecursive { reschedule in
            let runs = count.withLock { state -> Int in
                state.runs += 1
                if Scheduler.current !== scheduler { state.wrongCurrent += 1 }
                return state.runs
            }
            if runs < 100 { reschedule() }
        }
        #expect(waitUntil { count.value.runs == 100 })
        #expect(count.value.wrongCurrent == 0)
    }

    /// The repeating method it did not override is QueueScheduler's, still running as current.
    @Test func inheritsRepeating() {
        let ticks = Locked<[Bool]>([])
        let disposable = scheduler.schedule(after: Date(), repeatingEvery: 0.005) {
            ticks.withLock { $0.append(Scheduler.current === scheduler) }
        }
        #expect(waitUntil { ticks.value.count >= 3 })
        disposable?.dispose()
        #expect(ticks.value.allSatisfy { $0 })
    }

    @Test func defaultNameAndDescriptionSayTheSubclass() {
        #expect(scheduler.name.contains("TestExampleScheduler"))
        #expect(scheduler.description.contains("TestExampleScheduler"))
        #expect(scheduler.description.contains(scheduler.name))
    }
}
