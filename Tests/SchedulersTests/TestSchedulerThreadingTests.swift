import Foundation
import Schedulers
import Testing
import TestSupport

/// TestScheduler across threads: actions run on the thread that drives it, and scheduling and
/// disposing from other threads while it is driven loses, duplicates and resurrects nothing.
@Suite(.ownThread, .timeLimit(.minutes(5))) struct TestSchedulerThreadingTests {
    /// Runs `body(index)` on `count` threads of their own and waits, without blocking a
    /// cooperative thread, until all have returned.
    private func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) async {
        let group = DispatchGroup()
        for index in 0..<count {
            group.enter()
            Thread.detachNewThread {
                body(index)
                group.leave()
            }
        }
        await withCheckedContinuation { continuation in
            group.notify(queue: .global()) { continuation.resume() }
        }
    }

    @Test func actionsRunOnTheDrivingThreadAsTheCurrentScheduler() async {
        let scheduler = TestScheduler()
        let seen = Locked([Bool]())
        let driver = Locked<ObjectIdentifier?>(nil)
        for delay in 0..<3 {
            scheduler.schedule(afterDelay: Double(delay)) {
                let onDriver = driver.value == ObjectIdentifier(Thread.current)
                seen.withLock { $0.append(onDriver && Scheduler.current === scheduler) }
            }
        }
        await onThreads(1) { _ in
            driver.withLock { $0 = ObjectIdentifier(Thread.current) }
            scheduler.advance(by: 5)
        }
        #expect(seen.value == [true, true, true])
    }

    /// A TestScheduler is serial like every scheduler here, even when two threads drive
    /// it at once: the second driver waits, so no two actions ever overlap. Before, both drivers
    /// popped and ran actions concurrently.
    @Test func twoThreadsDrivingAtOnceNeverRunTwoActionsConcurrently() async {
        let scheduler = TestScheduler()
        let running = Locked(0)
        let mostAtOnce = Locked(0)
        let ran = Locked(0)
        let actions = 400
        for index in 0..<actions {
            scheduler.schedule(afterDelay: Double(index % 7)) {
                let now = running.withLock { $0 += 1; return $0 }
                mostAtOnce.withLock { $0 = max($0, now) }
                usleep(50)  // widens the window in which a second driver would overlap
                running.withLock { $0 -= 1 }
                ran.withLock { $0 += 1 }
            }
        }
        await onThreads(3) { index in
            switch index {
            case 0: while scheduler.pendingCount > 0 { scheduler.step() }
            case 1: while scheduler.pendingCount > 0 { scheduler.step(3) }
            default: while scheduler.pendingCount > 0 { scheduler.advance(by: 0.5) }
            }
        }
        #expect(ran.value == actions)
        #expect(mostAtOnce.value == 1)
    }

    @Test func anActionMayDriveItsOwnSchedulerWhileAnotherThreadWaitsToDrive() async {
        let scheduler = TestScheduler()
        let order = Locked<[String]>([])
        scheduler.schedule {
            order.withLock { $0.append("outer") }
            scheduler.schedule { order.withLock { $0.append("inner") } }
            scheduler.step()  // re-entrant on the driving thread: does not wait for itself
            order.withLock { $0.append("outer end") }
        }
        await onThreads(2) { index in
            if index == 0 { scheduler.advance(by: 1) } else { scheduler.advance(by: 1) }
        }
        #expect(order.value == ["outer", "inner", "outer end"])
    }

    @Test func schedulingAndDisposingFromFourThreadsWhileAnotherAdvances() async {
        // Each action records its own run. Actions to dispose are either scheduled far in the
        // future (their disposal always precedes their date, so they must never run) or near
        // `now` (their disposal races with their run: at most once).
        let perThread = stressCount(5_000)
        let threads = 4
        let far = 1e9
        let scheduler = TestScheduler()
        let runs = Locked([Int](repeating: 0, count: perThread * threads))
        let mustNotRun = Locked(Set<Int>())
        let mayRun = Locked(Set<Int>())
        let schedulersDone = Locked(0)

        await onThreads(threads + 1) { thread in
            if thread == threads {
                // The driver: advances in small steps until every scheduler thread is done.
                while schedulersDone.value < threads {
                    scheduler.advance(by: 0.5)
                }
                return
            }
            var random = SeededRandom(seed: 0xC0FFEE &+ UInt64(thread))
            for local in 0..<perThread {
                let id = thread * perThread + local
                let action: @Sendable () -> Void = { runs.withLock { $0[id] += 1 } }
                switch random.next() % 6 {
                case 0:
                    scheduler.schedule(afterDelay: far, action)?.dispose()
                    mustNotRun.withLock { _ = $0.insert(id) }
                case 1:
                    let disposable = scheduler.schedule(afterDelay: Double(random.next() % 3), action)
                    disposable?.dispose()
                    mayRun.withLock { _ = $0.insert(id) }
                case 2:
                    scheduler.schedule(action)
                case 3:
                    scheduler.schedule(after: scheduler.now.addingTimeInterval(Double(random.next() % 4)), action)
                case 4:
                    // An action that schedules the real one from the driving thread.
                    scheduler.schedule { scheduler.schedule(afterDelay: 1, action) }
                default:
                    scheduler.schedule(afterDelay: Double(random.next() % 10) / 4, action)
                }
            }
            schedulersDone.withLock { $0 += 1 }
        }

        scheduler.advance(by: 100)
        #expect(scheduler.pendingCount == 0)
        let runCounts = runs.value
        let forbidden = mustNotRun.value
        let optional = mayRun.value
        var wrong: [String] = []
        for (id, count) in runCounts.enumerated() {
            let allowed = forbidden.contains(id) ? 0...0 : optional.contains(id) ? 0...1 : 1...1
            if !allowed.contains(count) { wrong.append("action \(id) ran \(count) times") }
        }
        #expect(wrong.prefix(10) == [], "\(wrong.count) actions ran the wrong number of times")
        #expect(forbidden.count > 0 && optional.count > 0)
    }

    @Test func disposingFromAnotherThreadWhileARepeatingActionRunsStopsIt() async {
        let scheduler = TestScheduler()
        let ticks = Locked(0)
        let repeating = scheduler.schedule(after: scheduler.now, repeatingEvery: 1) {
            ticks.withLock { $0 += 1 }
        }
        await onThreads(2) { thread in
            if thread == 0 {
                // Drive until the other thread's disposal has taken effect.
                while scheduler.pendingCount > 0 { scheduler.step() }
            } else {
                _ = waitUntil { ticks.value >= 100 }
                repeating?.dispose()
            }
        }
        let final = ticks.value
        scheduler.advance(by: 1_000)
        #expect(final >= 100)
        #expect(ticks.value == final)
    }

    @Test func nowAndPendingCountAreSafeToReadWhileAnotherThreadDrives() async {
        let scheduler = TestScheduler()
        for index in 0..<20_000 {
            scheduler.schedule(afterDelay: Double(index % 100)) {}
        }
        let observations = Locked([String]())
        await onThreads(2) { thread in
            if thread == 0 {
                scheduler.advance(by: 100)
                return
            }
            var lastNow = scheduler.now
            var lastCount = scheduler.pendingCount
            while lastCount > 0 {
                let now = scheduler.now
                let count = scheduler.pendingCount
                if now < lastNow || count > lastCount {
                    observations.withLock { $0.append("now \(lastNow) → \(now), pending \(lastCount) → \(count)") }
                    return
                }
                (lastNow, lastCount) = (now, count)
            }
        }
        #expect(observations.value == [])
        #expect(scheduler.pendingCount == 0)
    }
}
