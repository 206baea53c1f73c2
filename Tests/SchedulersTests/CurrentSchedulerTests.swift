import Foundation
import Schedulers
import Testing
import TestSupport

/// `Scheduler.current` off the main thread: thread-local, set only while a scheduler's action
/// runs, restored after each action, untouched by the immediate scheduler. (The main-thread
/// cases, where it is `Scheduler.main`, are XCTests in MainSchedulerTests.swift.)
@Suite(.ownThread, .timeLimit(.minutes(5))) struct CurrentSchedulerTests {
    @Test func isNilOnABackgroundThreadOutsideActions() {
        #expect(!Thread.isMainThread)
        #expect(Scheduler.current == nil)

        let seen = Locked<[Bool]>([])
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) { seen.withLock { $0.append(Scheduler.current == nil) } }
        group.enter()
        Thread.detachNewThread {
            seen.withLock { $0.append(Scheduler.current == nil) }
            group.leave()
        }
        #expect(group.wait(timeout: .now() + 10) == .success)
        #expect(seen.value == [true, true])
    }

    /// `isCurrent` agrees with `Scheduler.current === scheduler` off the main thread: false
    /// outside actions (for `main` too), true inside the scheduler's own action and in the
    /// immediate scheduler's actions nested there, false for any other scheduler.
    @Test func isCurrentAgreesWithCurrentOffTheMainThread() {
        let scheduler = TargetQueueScheduler(name: "current.isCurrent")
        let other = TargetQueueScheduler(name: "current.isCurrent.other")
        #expect(!scheduler.isCurrent)
        #expect(!Scheduler.main.isCurrent)
        let seen = Locked<[Bool]>([])
        scheduler.schedule {
            let values = Locked([scheduler.isCurrent, other.isCurrent, Scheduler.main.isCurrent, Scheduler.immediate.isCurrent])
            Scheduler.immediate.schedule { values.withLock { $0.append(scheduler.isCurrent) } }
            other.performAsCurrentScheduler { values.withLock { $0 += [scheduler.isCurrent, other.isCurrent] } }
            values.withLock { $0.append(scheduler.isCurrent) }
            seen.withLock { $0 = values.value }
        }
        #expect(waitUntil { !seen.value.isEmpty })
        #expect(seen.value == [true, false, false, false, true, false, true, true])
        #expect(!scheduler.isCurrent)
    }

    @Test func isTheSchedulerWhileItsActionRuns() {
        let scheduler = TargetQueueScheduler(name: "current.background")
        let seen = Locked<Scheduler?>(nil)
        scheduler.schedule { seen.withLock { $0 = Scheduler.current } }
        #expect(waitUntil { seen.value != nil })
        #expect(seen.value === scheduler)
    }

    /// RAC: "should know its current scheduler" (the background cases; the main-thread jumpers
    /// are in MainSchedulerTests). Each step schedules the next from inside the previous one.
    @Test func backgroundThenImmediateStaysBackground() {
        let background = TargetQueueScheduler()
        #expect(currentSchedulersSeen(along: [background, .immediate]) == schedulerIdentities([background, background]))
    }

    @Test func backgroundThenSubscriptionStaysBackground() {
        let background = TargetQueueScheduler()
        #expect(currentSchedulersSeen(along: [background, .subscription]) == schedulerIdentities([background, background]))
    }

    @Test func backgroundJumpsBetweenTwoQueueSchedulers() {
        let first = TargetQueueScheduler(name: "current.first")
        let second = TargetQueueScheduler(name: "current.second")
        let path: [Scheduler] = [first, second, first, second]
        #expect(currentSchedulersSeen(along: path) == schedulerIdentities(path))
    }

    @Test func isRestoredAfterNestedPerformAsCurrentScheduler() {
        let outer = TargetQueueScheduler(name: "current.outer")
        let middle = TargetQueueScheduler(name: "current.middle")
        let inner = TargetQueueScheduler(name: "current.inner")
        let seen = Locked<[String]>([])
        let done = Locked(false)
        outer.schedule {
            func record(_ step: String) { seen.withLock { $0.append("\(step):\(Scheduler.current?.name ?? "nil")") } }
            record("a")
            middle.performAsCurrentScheduler {
                record("b")
                inner.performAsCurrentScheduler { record("c") }
                record("d")
            }
            record("e")
            done.withLock { $0 = true }
        }
        #expect(waitUntil { done.value })
        #expect(seen.value == [
            "a:current.outer", "b:current.middle", "c:current.inner", "d:current.middle", "e:current.outer",
        ])
    }

    @Test func performAsCurrentSchedulerOnABareThreadRestoresNil() {
        let scheduler = TargetQueueScheduler()
        var inside: Scheduler?
        scheduler.performAsCurrentScheduler { inside = Scheduler.current }
        #expect(inside === scheduler)
        #expect(Scheduler.current == nil)
    }

    /// The value does not leak into later blocks that the same worker thread runs.
    @Test func doesNotLeakIntoLaterBlocksOnTheSameQueue() {
        let queue = DispatchQueue(label: "current.leak")
        let scheduler = QueueScheduler(queue: queue)
        let after = Locked<[Bool]>([])
        for _ in 0..<100 {
            scheduler.schedule {}
            queue.async { after.withLock { $0.append(Scheduler.current == nil) } }
        }
        #expect(waitUntil { after.value.count == 100 })
        #expect(after.value.allSatisfy { $0 })
    }

    /// Several threads running actions of schedulers that share one concurrent queue each see
    /// their own scheduler, also across nested performAsCurrentScheduler calls.
    @Test func eachActionSeesItsSchedulerUnderConcurrentPerform() {
        let queue = DispatchQueue(label: "current.concurrent", attributes: .concurrent)
        let schedulers = (0..<4).map { QueueScheduler(name: "current.concurrent.\($0)", queue: queue) }
        let nested = TargetQueueScheduler(name: "current.nested")
        let iterations = 4000
        let results = Locked((runs: 0, wrong: 0))
        DispatchQueue.concurrentPerform(iterations: iterations) { index in
            let scheduler = schedulers[index % schedulers.count]
            scheduler.schedule {
                var right = Scheduler.current === scheduler
                nested.performAsCurrentScheduler { right = right && Scheduler.current === nested }
                right = right && Scheduler.current === scheduler
                results.withLock {
                    $0.runs += 1
                    if !right { $0.wrong += 1 }
                }
            }
        }
        #expect(waitUntil { results.value.runs == iterations })
        #expect(results.value.wrong == 0)
        #expect(Scheduler.current == nil)
    }

    @Test func immediateLeavesCurrentUnchanged() {
        let onBareThread = Locked<[Scheduler?]>([])
        Scheduler.immediate.schedule { onBareThread.withLock { $0.append(Scheduler.current) } }
        #expect(onBareThread.value.count == 1)
        #expect(onBareThread.value.first! == nil)

        let scheduler = TargetQueueScheduler(name: "current.immediate")
        let seen = Locked<[Scheduler?]>([])
        scheduler.schedule {
            Scheduler.immediate.schedule { seen.withLock { $0.append(Scheduler.current) } }
            Scheduler.immediate.schedule(after: Date.distantPast) { seen.withLock { $0.append(Scheduler.current) } }
            Scheduler.immediate.scheduleRecursive { _ in seen.withLock { $0.append(Scheduler.current) } }
        }
        #expect(waitUntil { seen.value.count == 3 })
        #expect(seen.value.allSatisfy { $0 === scheduler })
    }
}

/// Schedules a block on `schedulers[0]` which schedules the next on `schedulers[1]`, and so on,
/// recording `Scheduler.current` at each step (RAC's `expectCurrentSchedulers`). Waits for the
/// whole path, then returns the identities seen (nil steps are left out, as in RAC).
func currentSchedulersSeen(along schedulers: [Scheduler], timeout: TimeInterval = 10) -> [ObjectIdentifier] {
    let seen = Locked<[ObjectIdentifier]>([])
    let finished = Locked(false)
    @Sendable func step(_ remaining: ArraySlice<Scheduler>) {
        guard let first = remaining.first else {
            finished.withLock { $0 = true }
            return
        }
        first.schedule {
            if let current = Scheduler.current { seen.withLock { $0.append(ObjectIdentifier(current)) } }
            step(remaining.dropFirst())
        }
    }
    step(schedulers[...])
    _ = waitUntil(timeout: timeout) { finished.value }
    return seen.value
}

func schedulerIdentities(_ schedulers: [Scheduler]) -> [ObjectIdentifier] {
    schedulers.map(ObjectIdentifier.init)
}
