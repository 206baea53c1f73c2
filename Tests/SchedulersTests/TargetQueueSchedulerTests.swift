import Foundation
import Schedulers
import Testing
import TestSupport

/// RACTargetQueueSchedulerSpec, the priority initialisers, and seriality over concurrent targets.
@Suite(.ownThread, .timeLimit(.minutes(5))) struct TargetQueueSchedulerTests {
    /// RAC: "should have a valid current scheduler".
    @Test func hasAValidCurrentScheduler() {
        let queue = DispatchQueue(label: "test-queue")
        let scheduler = TargetQueueScheduler(name: "test-scheduler", targetQueue: queue)
        let current = Locked<Scheduler?>(nil)
        scheduler.schedule { current.withLock { $0 = Scheduler.current } }
        #expect(waitUntil { current.value != nil })
        #expect(current.value === scheduler)
    }

    /// RAC: "should schedule blocks FIFO even when given a concurrent queue". The first block
    /// holds the scheduler until the test lets it go; the second must not start meanwhile.
    @Test func schedulesBlocksFIFOEvenWhenGivenAConcurrentQueue() {
        let queue = DispatchQueue(label: "test-queue", attributes: .concurrent)
        let scheduler = TargetQueueScheduler(name: "test-scheduler", targetQueue: queue)
        let started = Locked<[Int]>([])
        let release = DispatchSemaphore(value: 0)
        scheduler.schedule {
            started.withLock { $0.append(1) }
            release.wait()
        }
        scheduler.schedule { started.withLock { $0.append(2) } }
        #expect(waitUntil { started.value == [1] })
        // The concurrent target has room, but the second block waits for the first.
        let probe = Locked(false)
        queue.async { probe.withLock { $0 = true } }
        #expect(waitUntil { probe.value })
        #expect(started.value == [1])
        release.signal()
        #expect(waitUntil { started.value == [1, 2] })
    }

    /// No two actions overlap, and they run in the order scheduled, over a concurrent target
    /// that other work keeps busy at the same time.
    @Test func isSerialOverAConcurrentQueue() {
        let queue = DispatchQueue(label: "tqs.concurrent", attributes: .concurrent)
        let scheduler = TargetQueueScheduler(name: "tqs.serial", targetQueue: queue)
        let running = Locked(0)
        let state = Locked((order: [Int](), overlaps: 0))
        let count = 2000
        for index in 0..<count {
            if index % 10 == 0 { queue.async { busyWork() } }  // competing work on the target
            scheduler.schedule {
                let before = running.withLock { value -> Int in
                    defer { value += 1 }
                    return value
                }
                busyWork()  // widens any overlap
                running.withLock { $0 -= 1 }
                state.withLock {
                    $0.order.append(index)
                    if before != 0 { $0.overlaps += 1 }
                }
            }
        }
        #expect(waitUntil { state.value.order.count == count })
        #expect(state.value.overlaps == 0)
        #expect(state.value.order == Array(0..<count))
    }

    /// Two target-queue schedulers over one concurrent queue may run at the same time as each
    /// other, but each stays serial and each action sees its own scheduler.
    @Test func siblingsOverOneConcurrentQueueEachStaySerial() {
        let queue = DispatchQueue(label: "tqs.siblings", attributes: .concurrent)
        let schedulers = (0..<3).map { TargetQueueScheduler(name: "tqs.sibling.\($0)", targetQueue: queue) }
        let running = Locked([0, 0, 0])
        let state = Locked((runs: 0, overlaps: 0, wrongCurrent: 0))
        let perScheduler = 500
        for _ in 0..<perScheduler {
            for (which, scheduler) in schedulers.enumerated() {
                scheduler.schedule {
                    let before = running.withLock { value -> Int in
                        defer { value[which] += 1 }
                        return value[which]
                    }
                    busyWork()
                    let current = Scheduler.current === scheduler
                    running.withLock { $0[which] -= 1 }
                    state.withLock {
                        $0.runs += 1
                        if before != 0 { $0.overlaps += 1 }
                        if !current { $0.wrongCurrent += 1 }
                    }
                }
            }
        }
        #expect(waitUntil { state.value.runs == perScheduler * schedulers.count })
        #expect(state.value.overlaps == 0)
        #expect(state.value.wrongCurrent == 0)
    }

    @Test(arguments: [Scheduler.Priority.high, .default, .low, .background])
    func priorityInitialiserWorks(priority: Scheduler.Priority) {
        let scheduler = TargetQueueScheduler(priority: priority, name: "tqs.priority.\(priority)")
        #expect(scheduler.name == "tqs.priority.\(priority)")
        #expect(scheduler.queue.label == scheduler.name)
        let seen = Locked<(current: Scheduler?, main: Bool)?>(nil)
        scheduler.schedule { seen.withLock { $0 = (Scheduler.current, Thread.isMainThread) } }
        let delayed = Locked(false)
        scheduler.schedule(afterDelay: 0.01) { delayed.withLock { $0 = true } }
        #expect(waitUntil { seen.value != nil && delayed.value })
        #expect(seen.value?.current === scheduler)
        #expect(seen.value?.main == false)
    }

    @Test func defaultPriorityInitialiserWorks() {
        let scheduler = TargetQueueScheduler()
        #expect(scheduler.name.contains("TargetQueueScheduler"))
        #expect(scheduler.queue.label == scheduler.name)
        let ran = Locked(false)
        scheduler.schedule { ran.withLock { $0 = Scheduler.current === scheduler } }
        #expect(waitUntil { ran.value })
    }

    @Test func priorityOnlyInitialiserGivesADefaultName() {
        let scheduler = TargetQueueScheduler(priority: .background)
        #expect(scheduler.name.contains("TargetQueueScheduler"))
    }

    /// Each scheduler gets a queue of its own, even with the same name and target.
    @Test func eachSchedulerHasItsOwnQueue() {
        let first = TargetQueueScheduler(name: "same", targetQueue: .global())
        let second = TargetQueueScheduler(name: "same", targetQueue: .global())
        #expect(first.queue !== second.queue)
        #expect(first.queue.label == "same" && second.queue.label == "same")
    }
}

/// A few microseconds of work that the optimiser cannot remove.
private func busyWork() {
    var total = 0
    for step in 0..<500 { total &+= step &* step }
    blackHole(total)
}

@inline(never) private func blackHole(_ value: Int) { withExtendedLifetime(value) {} }
