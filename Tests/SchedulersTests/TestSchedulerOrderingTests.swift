import Foundation
import Schedulers
import Testing
import TestSupport

/// TestScheduler's order: equal dates run FIFO (repeating actions keep their first place), and
/// actions may schedule, dispose and drive the scheduler re-entrantly without corrupting it.
@Suite(.ownThread, .timeLimit(.minutes(5))) struct TestSchedulerOrderingTests {
    let start = Date(timeIntervalSinceReferenceDate: 0)

    private func at(_ seconds: TimeInterval) -> Date {
        start.addingTimeInterval(seconds)
    }

    // MARK: Equal dates

    @Test func equalDatesRunInTheOrderScheduledWhicheverMethodWasUsed() {
        let scheduler = TestScheduler()
        let ran = Locked([Int]())
        for index in 0..<300 {
            switch index % 3 {
            case 0: scheduler.schedule(afterDelay: 7) { ran.withLock { $0.append(index) } }
            case 1: scheduler.schedule(after: at(7)) { ran.withLock { $0.append(index) } }
            default: scheduler.schedule(after: at(7).addingTimeInterval(0)) { ran.withLock { $0.append(index) } }
            }
        }
        scheduler.advance(by: 7)
        #expect(ran.value == Array(0..<300))
    }

    @Test func pastDatesAndScheduleAtNowShareOneFIFOQueue() {
        let scheduler = TestScheduler(startDate: at(10))
        let ran = Locked([String]())
        scheduler.schedule { ran.withLock { $0.append("now 1") } }
        scheduler.schedule(after: at(1)) { ran.withLock { $0.append("past") } }
        scheduler.schedule(afterDelay: 0) { ran.withLock { $0.append("delay 0") } }
        scheduler.schedule { ran.withLock { $0.append("now 2") } }
        scheduler.stepAll()
        #expect(ran.value == ["now 1", "past", "delay 0", "now 2"])
    }

    @Test func twoCoincidingRepeatingTimersKeepTheirCreationOrderEveryTime() {
        // A is created first but starts later, and runs first at every coincidence.
        let scheduler = TestScheduler()
        let ran = Locked([String]())
        scheduler.schedule(after: at(1), repeatingEvery: 5) { ran.withLock { $0.append("A\(Int(scheduler.now.timeIntervalSinceReferenceDate))") } }
        scheduler.schedule(after: at(0), repeatingEvery: 2) { ran.withLock { $0.append("B\(Int(scheduler.now.timeIntervalSinceReferenceDate))") } }
        scheduler.advance(by: 26)
        #expect(ran.value == [
            "B0", "A1", "B2", "B4", "A6", "B6", "B8", "B10", "A11", "B12", "B14", "A16", "B16",
            "B18", "B20", "A21", "B22", "B24", "A26", "B26",
        ])
    }

    @Test func aRepeatingTimerRequeuedLaterStillRunsFirstIfCreatedFirst() {
        // At 10, B was put back (at 0) before A was (at 1); A was created first, so A runs first.
        let scheduler = TestScheduler()
        let ran = Locked([String]())
        scheduler.schedule(after: at(1), repeatingEvery: 9) { ran.withLock { $0.append("A\(Int(scheduler.now.timeIntervalSinceReferenceDate))") } }
        scheduler.schedule(after: at(0), repeatingEvery: 10) { ran.withLock { $0.append("B\(Int(scheduler.now.timeIntervalSinceReferenceDate))") } }
        scheduler.advance(by: 30)
        #expect(ran.value == ["B0", "A1", "A10", "B10", "A19", "B20", "A28", "B30"])
    }

    @Test func twoRepeatingTimersOnTheSameScheduleAlternateInCreationOrder() {
        let scheduler = TestScheduler()
        let ran = Locked([String]())
        for name in ["x", "y", "z"] {
            scheduler.schedule(after: at(1), repeatingEvery: 1) { ran.withLock { $0.append(name) } }
        }
        scheduler.step(9)
        #expect(ran.value == ["x", "y", "z", "x", "y", "z", "x", "y", "z"])
    }

    @Test func aOneShotAndARepeatingActionAtTheSameDateRunInSchedulingOrder() {
        let scheduler = TestScheduler()
        let ran = Locked([String]())
        scheduler.schedule(after: at(10)) { ran.withLock { $0.append("one-shot first") } }
        scheduler.schedule(after: at(5), repeatingEvery: 5) { ran.withLock { $0.append("repeating \(scheduler.now.timeIntervalSinceReferenceDate)") } }
        // Scheduled after the repeating action was first scheduled: runs after its occurrence.
        scheduler.schedule(after: at(10)) { ran.withLock { $0.append("one-shot last") } }
        scheduler.advance(by: 10)
        #expect(ran.value == ["repeating 5.0", "one-shot first", "repeating 10.0", "one-shot last"])
    }

    @Test func aOneShotScheduledByARepeatingActionRunsAfterItsNextOccurrence() {
        // Scheduled later than the repeating action was first scheduled, so it runs after it.
        let scheduler = TestScheduler()
        let ran = Locked([String]())
        let once = Locked(false)
        scheduler.schedule(after: at(0), repeatingEvery: 1) {
            ran.withLock { $0.append("tick") }
            if !once.withLock({ done in defer { done = true }; return done }) {
                scheduler.schedule(afterDelay: 1) { ran.withLock { $0.append("child") } }
            }
        }
        scheduler.advance(by: 1)
        #expect(ran.value == ["tick", "tick", "child"])
    }

    // MARK: Re-entrancy

    @Test func anActionScheduledAtNowFromAnActionRunsAfterThoseAlreadyDue() {
        let scheduler = TestScheduler()
        let ran = Locked([String]())
        scheduler.schedule {
            ran.withLock { $0.append("a") }
            scheduler.schedule { ran.withLock { $0.append("a's child") } }
        }
        scheduler.schedule { ran.withLock { $0.append("b") } }
        scheduler.advance(by: 0)
        #expect(ran.value == ["a", "b", "a's child"])
    }

    @Test func anActionCanDisposeAPendingAction() {
        let scheduler = TestScheduler()
        let ran = Locked([String]())
        let victim = SerialDisposable()
        scheduler.schedule {
            ran.withLock { $0.append("a") }
            victim.dispose()
        }
        victim.disposable = scheduler.schedule { ran.withLock { $0.append("victim") } }
        scheduler.schedule { ran.withLock { $0.append("c") } }
        scheduler.stepAll()
        #expect(ran.value == ["a", "c"])
    }

    @Test func anActionCanDisposeItselfWhileRunning() {
        let scheduler = TestScheduler()
        let slot = SerialDisposable()
        let ran = Locked(0)
        slot.disposable = scheduler.schedule {
            slot.dispose()
            ran.withLock { $0 += 1 }
        }
        scheduler.stepAll()
        #expect(ran.value == 1)
    }

    @Test func anActionCanReadTheSchedulersState() {
        let scheduler = TestScheduler()
        let seen = Locked([String]())
        scheduler.schedule(afterDelay: 3) {
            seen.withLock { $0.append("\(scheduler.now.timeIntervalSinceReferenceDate) \(scheduler.pendingCount)") }
        }
        scheduler.schedule(afterDelay: 4) {}
        scheduler.stepAll()
        #expect(seen.value == ["3.0 1"])
    }

    @Test func anActionCanAdvanceTheScheduler() {
        let scheduler = TestScheduler()
        let ran = Locked([String]())
        scheduler.schedule(afterDelay: 1) {
            ran.withLock { $0.append("outer at \(scheduler.now.timeIntervalSinceReferenceDate)") }
            scheduler.advance(by: 5)
            ran.withLock { $0.append("outer back at \(scheduler.now.timeIntervalSinceReferenceDate)") }
        }
        scheduler.schedule(afterDelay: 2) { ran.withLock { $0.append("b at \(scheduler.now.timeIntervalSinceReferenceDate)") } }
        scheduler.schedule(afterDelay: 6) { ran.withLock { $0.append("c at \(scheduler.now.timeIntervalSinceReferenceDate)") } }
        scheduler.schedule(afterDelay: 7) { ran.withLock { $0.append("d at \(scheduler.now.timeIntervalSinceReferenceDate)") } }
        scheduler.advance(by: 3)
        #expect(ran.value == ["outer at 1.0", "b at 2.0", "c at 6.0", "outer back at 6.0"])
        // The outer advance never moves `now` back to 3.
        #expect(scheduler.now == at(6))
        scheduler.advance(by: 1)
        #expect(ran.value.last == "d at 7.0")
    }

    @Test func anActionCanStepTheScheduler() {
        let scheduler = TestScheduler()
        let ran = Locked([String]())
        scheduler.schedule {
            ran.withLock { $0.append("a") }
            scheduler.step()
            ran.withLock { $0.append("a again") }
            scheduler.stepAll()
            ran.withLock { $0.append("a done") }
        }
        scheduler.schedule { ran.withLock { $0.append("b") } }
        scheduler.schedule(afterDelay: 1) { ran.withLock { $0.append("c") } }
        scheduler.step()
        #expect(ran.value == ["a", "b", "a again", "c", "a done"])
        #expect(scheduler.pendingCount == 0)
    }

    @Test func aRepeatingActionThatDrivesTheSchedulerIsNotRunReentrantly() {
        // While its occurrence runs, a repeating action is out of the queue: a nested advance
        // past its next date does not run it inside itself; it recurs afterwards, at `now`.
        let scheduler = TestScheduler()
        let ran = Locked([String]())
        let depth = Locked(0)
        let repeating = scheduler.schedule(after: at(1), repeatingEvery: 1) {
            let nested = depth.withLock { $0 += 1; return $0 }
            #expect(nested == 1)
            ran.withLock { $0.append("tick \(scheduler.now.timeIntervalSinceReferenceDate)") }
            if scheduler.now == at(1) { scheduler.advance(by: 3) }
            depth.withLock { $0 -= 1 }
        }
        scheduler.schedule(afterDelay: 2) { ran.withLock { $0.append("other \(scheduler.now.timeIntervalSinceReferenceDate)") } }
        scheduler.advance(by: 1)
        #expect(ran.value == ["tick 1.0", "other 2.0"])
        #expect(scheduler.now == at(4))
        scheduler.advance(by: 0)
        #expect(ran.value == ["tick 1.0", "other 2.0", "tick 4.0"])
        repeating?.dispose()
    }

    @Test func deeplyNestedSchedulingKeepsOrder() {
        // Each action schedules the next at now and one a second later: a breadth-first pattern.
        let scheduler = TestScheduler()
        let ran = Locked([String]())
        @Sendable func spawn(_ name: String, depth: Int) {
            ran.withLock { $0.append(name) }
            guard depth > 0 else { return }
            scheduler.schedule { spawn(name + "n", depth: depth - 1) }
            scheduler.schedule(afterDelay: 1) { spawn(name + "l", depth: depth - 1) }
        }
        scheduler.schedule { spawn("r", depth: 2) }
        scheduler.stepAll()
        #expect(ran.value == ["r", "rn", "rnn", "rl", "rnl", "rln", "rll"])
        #expect(scheduler.now == at(2))
    }

    // MARK: Scale

    /// Checks, for each action against the one before it, that time never decreases, that equal
    /// times run in scheduling order, and that `now` is the action's due time. Plain state with
    /// no lock: actions run one at a time on the driving thread (the test's), which is part of
    /// the contract under test; a lock per action would double the test's cost.
    private final class OrderCheck: @unchecked Sendable {
        var ran = 0
        var lastTime = -1.0
        var lastIndex = -1
        var violations: [String] = []

        func record(index: Int, time: Double, now: Double) {
            let inOrder = time > lastTime || (time == lastTime && index > lastIndex)
            if (!inOrder || now != time) && violations.count < 5 {
                violations.append("action \(index) at \(time) (now \(now)) after \(lastIndex) at \(lastTime)")
            }
            ran += 1
            lastTime = time
            lastIndex = index
        }
    }

    @Test func aMillionActionsAtRandomTimesRunInOrder() {
        let count = stressCount(1_000_000)
        let scheduler = TestScheduler()
        var random = SeededRandom(seed: 0x5EED_0001)
        let check = OrderCheck()
        for index in 0..<count {
            let time = Double(random.next() % 100_000)
            scheduler.schedule(after: Date(timeIntervalSinceReferenceDate: time)) {
                check.record(index: index, time: time, now: scheduler.now.timeIntervalSinceReferenceDate)
            }
        }
        #expect(scheduler.pendingCount == count)

        scheduler.advance(by: 100_000)
        #expect(check.violations == [])
        #expect(check.ran == count)
        #expect(scheduler.pendingCount == 0)
    }
}
