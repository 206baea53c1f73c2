import Foundation
import Schedulers
import Synchronization
import Testing
import TestSupport

/// `QueueScheduler` as a `SerialExecutor` (actors) and a `TaskExecutor` (task preference).
@Suite(.ownThread, .timeLimit(.minutes(5))) struct QueueSchedulerExecutorTests {
    @Test(.timeLimit(.minutes(5)))
    func anActorOnATargetQueueSchedulerIsSerialised() async {
        let scheduler = TargetQueueScheduler(name: "actor.queue")
        let counter = Counter(scheduler: scheduler)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<1_000 {
                group.addTask { await counter.increment() }
            }
        }
        #expect(await counter.value == 1_000)
        #expect(await counter.everyCallWasOnTheQueue)
        #expect(counter.maximumOverlap.load(ordering: .relaxed) == 1)
    }

    @Test(.timeLimit(.minutes(5)))
    func assumeIsolatedWorksInsideAPlainScheduledAction() async {
        let scheduler = TargetQueueScheduler()
        let counter = Counter(scheduler: scheduler)
        let value = await withCheckedContinuation { continuation in
            scheduler.schedule {
                let value = counter.assumeIsolated { counter in
                    counter.increment()
                    return counter.value
                }
                continuation.resume(returning: value)
            }
        }
        #expect(value == 1)
    }

    @Test func itIsIsolatingOnlyOnItsQueue() async {
        let scheduler = TargetQueueScheduler()
        let other = TargetQueueScheduler()
        #expect(scheduler.isIsolatingCurrentContext() == false)
        let onOwnQueue = await withCheckedContinuation { continuation in
            scheduler.schedule { continuation.resume(returning: scheduler.isIsolatingCurrentContext()) }
        }
        let onOtherQueue = await withCheckedContinuation { continuation in
            other.schedule { continuation.resume(returning: scheduler.isIsolatingCurrentContext()) }
        }
        #expect(onOwnQueue == true)
        #expect(onOtherQueue == false)
    }

    @Test func schedulersSharingAQueueBothRecogniseIt() async {
        let queue = DispatchQueue(label: "shared")
        let first = QueueScheduler(queue: queue)
        let second = QueueScheduler(queue: queue)
        let answers = await withCheckedContinuation { continuation in
            first.schedule {
                continuation.resume(returning: [first.isIsolatingCurrentContext(), second.isIsolatingCurrentContext()])
            }
        }
        #expect(answers == [true, true])
    }

    @Test(.timeLimit(.minutes(5)))
    func aTaskPreferringItRunsOnTheQueueAsCurrent() async {
        let scheduler = TargetQueueScheduler()
        let seen = await Task(executorPreference: scheduler) {
            var seen = [Scheduler.current === scheduler && scheduler.isIsolatingCurrentContext() == true]
            try? await Task.sleep(for: .milliseconds(1))  // resumes on the preferred executor
            seen.append(Scheduler.current === scheduler && scheduler.isIsolatingCurrentContext() == true)
            return seen
        }.value
        #expect(seen == [true, true])
    }

    @Test(.timeLimit(.minutes(5)))
    func withTaskExecutorPreferenceRunsTheBodyOnTheQueue() async {
        let scheduler = TargetQueueScheduler()
        let onQueue = await withTaskExecutorPreference(scheduler) {
            Scheduler.current === scheduler && scheduler.isIsolatingCurrentContext() == true
        }
        #expect(onQueue)
    }
}

/// An actor whose executor is a queue scheduler.
private actor Counter {
    let scheduler: TargetQueueScheduler
    private(set) var value = 0
    private(set) var everyCallWasOnTheQueue = true
    /// Calls inside `increment` at once, measured outside the actor's protection.
    nonisolated let overlap = Atomic(0)
    nonisolated let maximumOverlap = Atomic(0)

    init(scheduler: TargetQueueScheduler) {
        self.scheduler = scheduler
    }

    nonisolated var unownedExecutor: UnownedSerialExecutor {
        scheduler.asUnownedSerialExecutor()
    }

    func increment() {
        let inside = overlap.add(1, ordering: .relaxed).newValue
        maximumOverlap.max(inside, ordering: .relaxed)
        if Scheduler.current !== scheduler { everyCallWasOnTheQueue = false }
        let read = value
        for _ in 0..<100 { _ = overlap.load(ordering: .relaxed) }  // widen the window for a lost update
        value = read + 1
        overlap.subtract(1, ordering: .relaxed)
    }
}
