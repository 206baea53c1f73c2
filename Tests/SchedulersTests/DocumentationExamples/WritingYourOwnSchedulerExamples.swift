import Foundation
import Schedulers
import Synchronization
import Testing
import TestSupport

// The code of the "Writing your own scheduler" article (WritingYourOwnScheduler.md); its blocks
// are copies of the snippet regions here (DocumentationSnippetTests compares them). The parts
// that use `Scheduler.now` and the overridable `Duration` forms are in SchedulerTimeExamples.swift.

/// A scheduler of your own: runs every action on `base`, as itself, counting the actions it
/// starts. It overrides the three methods a subclass must, runs each action inside
/// `performAsCurrentScheduler`, returns `base`'s disposables (so disposal keeps `base`'s
/// guarantees) and inherits `schedule(afterDelay:)` and `scheduleRecursive(_:)`.
// snippet: writing-counting-scheduler
final class CountingScheduler: Scheduler, @unchecked Sendable {
    // `@unchecked`: both stored properties are immutable and Sendable.
    let base: Scheduler
    private let started = Atomic<Int>(0)

    /// How many actions (timer ticks included) this scheduler has started.
    var startedCount: Int { started.load(ordering: .relaxed) }

    init(base: Scheduler, name: String? = nil) {
        self.base = base
        super.init(name: name)
    }

    @discardableResult
    override func schedule(
        _ action: @escaping @Sendable () -> Void
    ) -> (any Disposable)? {
        base.schedule(wrap(action))
    }

    @discardableResult
    override func schedule(
        after date: Date, _ action: @escaping @Sendable () -> Void
    ) -> (any Disposable)? {
        base.schedule(after: date, wrap(action))
    }

    @discardableResult
    override func schedule(
        after date: Date, repeatingEvery interval: TimeInterval,
        withLeeway leeway: TimeInterval = 0,
        _ action: @escaping @Sendable () -> Void
    ) -> (any Disposable)? {
        base.schedule(
            after: date, repeatingEvery: interval, withLeeway: leeway,
            wrap(action))
    }

    /// Pending work lives wherever `base` keeps it.
    override var storesPendingWork: Bool { base.storesPendingWork }

    private func wrap(
        _ action: @escaping @Sendable () -> Void
    ) -> @Sendable () -> Void {
        if base.storesPendingWork {
            // `base` holds this closure until it runs; holding `self`
            // (which holds `base`) would be a cycle that keeps a dropped
            // TestScheduler and its pending work alive.
            return { [weak self] in self?.run(action) }
        }
        // A queue scheduler's work runs until disposed, even when this
        // object is released.
        return { [self] in run(action) }
    }

    private func run(_ action: () -> Void) {
        started.add(1, ordering: .relaxed)
        performAsCurrentScheduler(action)
    }
}
// snippet: end

@Suite(.ownThread, .timeLimit(.minutes(5))) struct WritingYourOwnSchedulerExamples {
    @Test func runsOnItsBaseAsTheCurrentScheduler() {
        let test = TestScheduler()
        let counting = CountingScheduler(base: test, name: "counting")
        nonisolated(unsafe) var current: Scheduler?
        counting.schedule(after: test.now.addingTimeInterval(5)) { current = Scheduler.current }

        test.advance(by: 5)
        #expect(current === counting)
        #expect(counting.startedCount == 1)
    }

    @Test func inheritsScheduleRecursive() {
        let test = TestScheduler()
        let counting = CountingScheduler(base: test)
        nonisolated(unsafe) var iterations = 0
        counting.scheduleRecursive { reschedule in
            iterations += 1
            if iterations < 3 { reschedule() }
        }
        test.stepAll()
        #expect(iterations == 3)
        #expect(counting.startedCount == 3)
    }

    @Test func disposalKeepsTheBasesGuarantees() {
        let test = TestScheduler()
        let counting = CountingScheduler(base: test)
        nonisolated(unsafe) var ticks = 0
        let timer = counting.schedule(after: test.now, repeatingEvery: 1) { ticks += 1 }
        test.advance(by: 2)
        timer?.dispose()
        test.advance(by: 10)
        #expect(ticks == 3)   // at 0, 1 and 2
        #expect(test.pendingCount == 0)
    }

    @Test func pendingWorkDoesNotKeepAVirtualTimeBaseAlive() {
        var test: TestScheduler? = TestScheduler()
        var counting: CountingScheduler? = CountingScheduler(base: test!)
        let watchTest = Weak(test!)
        let watchCounting = Weak(counting!)
        counting!.schedule(after: test!.now, repeatingEvery: 1) {}
        counting = nil
        test = nil
        #expect(watchTest.object == nil)
        #expect(watchCounting.object == nil)
    }

    @Test func onAQueueItRunsOnTheQueue() {
        let queue = DispatchQueue(label: "com.example.counting")
        let counting = CountingScheduler(base: QueueScheduler(queue: queue))
        let seen = Locked<Bool?>(nil)
        counting.schedule {
            dispatchPrecondition(condition: .onQueue(queue))
            seen.withLock { $0 = Scheduler.current === counting }
        }
        #expect(waitUntil { seen.value != nil })
        #expect(seen.value == true)
        #expect(counting.startedCount == 1)
    }
}
