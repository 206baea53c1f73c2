import Foundation
import Schedulers
import Testing
import TestSupport

/// TestScheduler's stepping and time: every case of ReactiveObjC's RACTestSchedulerSpec, the
/// TestScheduler cases of ReactiveSwift's SchedulerSpec and RxSwift's VirtualScheduler /
/// HistoricalScheduler tests, mapped to our contract, then the contract's own sentences.
@Suite(.ownThread, .timeLimit(.minutes(5))) struct TestSchedulerTests {
    let start = Date(timeIntervalSinceReferenceDate: 0)

    private func at(_ seconds: TimeInterval) -> Date {
        start.addingTimeInterval(seconds)
    }

    // MARK: RACTestSchedulerSpec

    @Test func steppingWhileEmptyDoesNothing() {
        let scheduler = TestScheduler()
        scheduler.step()
        scheduler.step(5)
        scheduler.stepAll()
        #expect(scheduler.now == start)
        #expect(scheduler.pendingCount == 0)
    }

    @Test func stepRunsTheEarliestEnqueuedAction() {
        let scheduler = TestScheduler()
        let ran = Locked([String]())
        scheduler.schedule { ran.withLock { $0.append("first") } }
        scheduler.schedule { ran.withLock { $0.append("second") } }
        #expect(ran.value == [])

        scheduler.step()
        #expect(ran.value == ["first"])
        scheduler.step()
        #expect(ran.value == ["first", "second"])
    }

    @Test func stepsMultipleTimes() {
        let scheduler = TestScheduler()
        let ran = Locked([Int]())
        for index in 1...3 {
            scheduler.schedule { ran.withLock { $0.append(index) } }
        }
        #expect(ran.value == [])

        scheduler.step(2)
        #expect(ran.value == [1, 2])
        scheduler.step(1)
        #expect(ran.value == [1, 2, 3])
    }

    @Test func stepAllRunsEveryScheduledAction() {
        let scheduler = TestScheduler()
        let executions = Locked(0)
        for _ in 0..<10 {
            scheduler.schedule { executions.withLock { $0 += 1 } }
        }
        #expect(executions.value == 0)

        scheduler.stepAll()
        #expect(executions.value == 10)
        #expect(scheduler.pendingCount == 0)
    }

    @Test func stepRunsActionsInDateOrder() {
        let scheduler = TestScheduler()
        let ran = Locked([String]())
        scheduler.schedule(after: .distantFuture) { ran.withLock { $0.append("later") } }
        scheduler.schedule(after: scheduler.now.addingTimeInterval(20)) { ran.withLock { $0.append("earlier") } }
        #expect(ran.value == [])

        scheduler.step()
        #expect(ran.value == ["earlier"])
        #expect(scheduler.now == at(20))
        scheduler.step()
        #expect(ran.value == ["earlier", "later"])
        #expect(scheduler.now == .distantFuture)
    }

    @Test func stepRunsDelayedActionsInDateOrder() {
        let scheduler = TestScheduler()
        let ran = Locked([String]())
        scheduler.schedule(afterDelay: 100) { ran.withLock { $0.append("later") } }
        scheduler.schedule(afterDelay: 50) { ran.withLock { $0.append("earlier") } }
        #expect(ran.value == [])

        scheduler.step()
        #expect(ran.value == ["earlier"])
        scheduler.step()
        #expect(ran.value == ["earlier", "later"])
    }

    @Test func stepRunsRepeatingActionsInDateOrder() {
        let scheduler = TestScheduler()
        let first = Locked(0)
        let second = Locked(0)
        scheduler.schedule(after: at(20), repeatingEvery: 5) { first.withLock { $0 += 1 } }
        scheduler.schedule(after: at(22), repeatingEvery: 10) { second.withLock { $0 += 1 } }
        #expect(first.value == 0 && second.value == 0)

        // (now after the step, first's count, second's count)
        let expected: [(TimeInterval, Int, Int)] = [(20, 1, 0), (22, 1, 1), (25, 2, 1), (30, 3, 1), (32, 3, 2)]
        for (time, firstCount, secondCount) in expected {
            scheduler.step()
            #expect(scheduler.now == at(time))
            #expect(first.value == firstCount, "at \(time)")
            #expect(second.value == secondCount, "at \(time)")
        }
    }

    // MARK: ReactiveSwift SchedulerSpec, "TestScheduler"

    @Test func startsAtTheStartDate() {
        #expect(TestScheduler().now == start)
        let startDate = Date()
        #expect(TestScheduler(startDate: startDate).now == startDate)
    }

    @Test func runsImmediatelyEnqueuedActionsUponAdvancement() {
        let scheduler = TestScheduler(startDate: Date())
        let startDate = scheduler.now
        let driver = ObjectIdentifier(Thread.current)
        let string = Locked("")
        scheduler.schedule {
            string.withLock { $0 += "foo" }
            #expect(ObjectIdentifier(Thread.current) == driver)
        }
        scheduler.schedule {
            string.withLock { $0 += "bar" }
            #expect(ObjectIdentifier(Thread.current) == driver)
        }
        #expect(string.value == "")

        scheduler.advance(by: 0)
        #expect(scheduler.now == startDate)
        #expect(string.value == "foobar")
    }

    @Test func runsActionsWhenAdvancedPastTheirDate() {
        let scheduler = TestScheduler()
        let string = Locked("")
        scheduler.schedule(afterDelay: 15) {
            string.withLock { $0 += "bar" }
            #expect(scheduler.now == at(15))
        }
        scheduler.schedule(afterDelay: 5) {
            string.withLock { $0 += "foo" }
            #expect(scheduler.now == at(5))
        }
        #expect(string.value == "")

        scheduler.advance(by: 10)
        #expect(scheduler.now == at(10))
        #expect(string.value == "foo")

        scheduler.advance(by: 10)
        #expect(scheduler.now == at(20))
        #expect(string.value == "foobar")
    }

    /// ReactiveSwift's `run()` advances to the distant future; here that is `advance(to:)`, and
    /// `stepAll()` runs the same actions but leaves `now` at the last one's date.
    @Test(arguments: [true, false])
    func runsAllRemainingActionsInOrder(toDistantFuture: Bool) {
        let scheduler = TestScheduler()
        let string = Locked("")
        scheduler.schedule(afterDelay: 15) { string.withLock { $0 += "bar" } }
        scheduler.schedule(afterDelay: 5) { string.withLock { $0 += "foo" } }
        scheduler.schedule { string.withLock { $0 += "fuzzbuzz" } }
        #expect(string.value == "")

        if toDistantFuture {
            scheduler.advance(to: .distantFuture)
            #expect(scheduler.now == .distantFuture)
        } else {
            scheduler.stepAll()
            #expect(scheduler.now == at(15))
        }
        #expect(string.value == "fuzzbuzzfoobar")
    }

    // MARK: RxSwift VirtualSchedulerTest / HistoricalSchedulerTest

    /// An action at 10 that schedules one 20 later and one at once; returns their disposables.
    private func scheduleNested(on scheduler: TestScheduler, times: Locked<[TimeInterval]>, disposeChildren: Bool) {
        scheduler.schedule(afterDelay: 10) {
            times.withLock { $0.append(scheduler.now.timeIntervalSinceReferenceDate) }
            let later = scheduler.schedule(afterDelay: 20) {
                times.withLock { $0.append(scheduler.now.timeIntervalSinceReferenceDate) }
            }
            let atOnce = scheduler.schedule {
                times.withLock { $0.append(scheduler.now.timeIntervalSinceReferenceDate) }
            }
            if disposeChildren {
                atOnce?.dispose()
                later?.dispose()
            }
        }
    }

    @Test func runsNestedActionsAtTheirVirtualTimes() {
        let scheduler = TestScheduler()
        let times = Locked([TimeInterval]())
        scheduleNested(on: scheduler, times: times, disposeChildren: false)
        scheduler.stepAll()
        #expect(times.value == [10, 10, 30])
    }

    @Test func disposedNestedActionsDoNotRun() {
        let scheduler = TestScheduler()
        let times = Locked([TimeInterval]())
        scheduleNested(on: scheduler, times: times, disposeChildren: true)
        scheduler.stepAll()
        #expect(times.value == [10])
        #expect(scheduler.pendingCount == 0)
    }

    @Test func advanceToAfterEverythingRunsEverything() {
        let scheduler = TestScheduler()
        let times = Locked([TimeInterval]())
        scheduleNested(on: scheduler, times: times, disposeChildren: false)
        scheduler.advance(to: at(100))
        #expect(times.value == [10, 10, 30])
        #expect(scheduler.now == at(100))
    }

    @Test func advanceToADateRunsWhatIsDueIncludingWorkScheduledAtThatDate() {
        let scheduler = TestScheduler()
        let times = Locked([TimeInterval]())
        scheduleNested(on: scheduler, times: times, disposeChildren: false)
        scheduler.advance(to: at(10))
        #expect(times.value == [10, 10])
        #expect(scheduler.pendingCount == 1)
    }

    @Test func disposedNestedActionsDoNotRunOnAdvance() {
        let scheduler = TestScheduler()
        let times = Locked([TimeInterval]())
        scheduleNested(on: scheduler, times: times, disposeChildren: true)
        scheduler.advance(to: at(200))
        #expect(times.value == [10])
    }

    // MARK: The contract: time

    @Test func scheduleIsDueAtNowAndRunsWithoutMovingTime() {
        let scheduler = TestScheduler(startDate: at(42))
        let seen = Locked([Date]())
        scheduler.schedule { seen.withLock { $0.append(scheduler.now) } }
        scheduler.step()
        #expect(seen.value == [at(42)])
        #expect(scheduler.now == at(42))
    }

    @Test func afterDelayCountsFromVirtualNowNotTheWallClock() {
        // Virtual time starts in 2001, far from the wall clock: a delay must still be 5 s of it.
        let scheduler = TestScheduler()
        scheduler.advance(by: 100)
        let seen = Locked([Date]())
        scheduler.schedule(afterDelay: 5) { seen.withLock { $0.append(scheduler.now) } }
        scheduler.advance(by: 4.5)
        #expect(seen.value == [])
        scheduler.advance(by: 0.5)
        #expect(seen.value == [at(105)])
    }

    @Test func nowIsTheDueDateWhileAnActionRuns() {
        let scheduler = TestScheduler()
        let seen = Locked([Date]())
        for delay in [3.0, 7.5, 7.5, 12.25] {
            scheduler.schedule(afterDelay: delay) { seen.withLock { $0.append(scheduler.now) } }
        }
        scheduler.advance(by: 100)
        #expect(seen.value == [at(3), at(7.5), at(7.5), at(12.25)])
        #expect(scheduler.now == at(100))
    }

    @Test func stepMovesNowForwardToTheActionsDate() {
        let scheduler = TestScheduler()
        scheduler.schedule(afterDelay: 30) {}
        scheduler.step()
        #expect(scheduler.now == at(30))
    }

    @Test func aPastDateRunsAtNow() {
        let scheduler = TestScheduler(startDate: at(50))
        let seen = Locked([Date]())
        scheduler.schedule(after: at(10)) { seen.withLock { $0.append(scheduler.now) } }
        scheduler.schedule(afterDelay: -5) { seen.withLock { $0.append(scheduler.now) } }
        scheduler.schedule(after: .distantPast) { seen.withLock { $0.append(scheduler.now) } }
        scheduler.advance(by: 0)
        #expect(seen.value == [at(50), at(50), at(50)])
        #expect(scheduler.now == at(50))
    }

    @Test func aPastDateIsDueAtTheNowOfWhenItWasScheduled() {
        // It runs at the `now` it was scheduled at, before later actions, even if `now` moves on.
        let scheduler = TestScheduler(startDate: at(50))
        let ran = Locked([String]())
        scheduler.schedule(afterDelay: 1) { ran.withLock { $0.append("at 51") } }
        scheduler.schedule(after: at(0)) { ran.withLock { $0.append("past") } }
        scheduler.step()
        #expect(ran.value == ["past"])
        #expect(scheduler.now == at(50))
    }

    @Test func nowNeverMovesBackwards() {
        let scheduler = TestScheduler()
        scheduler.advance(to: at(100))
        scheduler.advance(to: at(40))
        #expect(scheduler.now == at(100))
        scheduler.advance(by: -10)
        #expect(scheduler.now == at(100))
        scheduler.schedule(after: at(1)) {}
        scheduler.step()
        #expect(scheduler.now == at(100))
    }

    @Test func advanceToAnEarlierDateRunsWhatIsDueAndLeavesNow() {
        let scheduler = TestScheduler(startDate: at(100))
        let ran = Locked([String]())
        scheduler.schedule { ran.withLock { $0.append("now") } }
        scheduler.schedule(after: at(20)) { ran.withLock { $0.append("past") } }
        scheduler.schedule(afterDelay: 1) { ran.withLock { $0.append("future") } }
        scheduler.advance(to: at(10))
        #expect(ran.value == ["now", "past"])
        #expect(scheduler.now == at(100))
        #expect(scheduler.pendingCount == 1)
    }

    @Test func aNegativeAdvanceRunsWhatIsDueAndLeavesNow() {
        let scheduler = TestScheduler(startDate: at(100))
        let ran = Locked(0)
        scheduler.schedule { ran.withLock { $0 += 1 } }
        scheduler.schedule(afterDelay: 1) { ran.withLock { $0 += 10 } }
        scheduler.advance(by: -50)
        #expect(ran.value == 1)
        #expect(scheduler.now == at(100))
    }

    @Test func anActionDueExactlyAtTheEndOfAnAdvanceRunsInIt() {
        // 0.1 + 0.2 is not 0.3 in binary; virtual time adds the decimals exactly, so both the
        // due time and the boundary are exactly 0.3 s (ExactVirtualTimeTests).
        let scheduler = TestScheduler(startDate: at(0.1))
        let ran = Locked(0)
        scheduler.schedule(afterDelay: 0.2) { ran.withLock { $0 += 1 } }
        scheduler.advance(by: 0.2)
        #expect(ran.value == 1)
        #expect(scheduler.now == at(0.3))
    }

    @Test func anActionDueJustAfterTheEndOfAnAdvanceWaits() {
        let scheduler = TestScheduler()
        let ran = Locked(0)
        scheduler.schedule(afterDelay: 10) { ran.withLock { $0 += 1 } }
        scheduler.advance(by: 10.0.nextDown)
        #expect(ran.value == 0)
        scheduler.advance(to: at(10))
        #expect(ran.value == 1)
    }

    @Test func advanceToADateRunsEverythingDueByThenInOrder() {
        let scheduler = TestScheduler()
        let ran = Locked([Int]())
        for (index, delay) in [5.0, 1, 4, 2, 3, 6].enumerated() {
            scheduler.schedule(afterDelay: delay) { ran.withLock { $0.append(index) } }
        }
        scheduler.advance(to: at(5))
        #expect(ran.value == [1, 3, 4, 2, 0])
        #expect(scheduler.now == at(5))
        #expect(scheduler.pendingCount == 1)
    }

    @Test func extremeDatesAndDelaysNeitherTrapNorRunEarly() {
        let scheduler = TestScheduler()
        let ran = Locked([String]())
        scheduler.schedule(afterDelay: 1e300) { ran.withLock { $0.append("1e300") } }
        scheduler.schedule(after: .distantFuture) { ran.withLock { $0.append("distantFuture") } }
        scheduler.schedule(after: Date(timeIntervalSinceReferenceDate: .nan)) { ran.withLock { $0.append("nan") } }
        scheduler.advance(by: 1e9)
        #expect(ran.value == ["nan"])
        scheduler.stepAll()
        #expect(ran.value == ["nan", "distantFuture", "1e300"])
    }

    // MARK: The contract: stepping and pendingCount

    @Test func stepWithMoreTicksThanActionsRunsThemAll() {
        let scheduler = TestScheduler()
        let ran = Locked(0)
        scheduler.schedule { ran.withLock { $0 += 1 } }
        scheduler.schedule(afterDelay: 3) { ran.withLock { $0 += 1 } }
        scheduler.step(10)
        #expect(ran.value == 2)
        scheduler.step(0)
        #expect(scheduler.now == at(3))
    }

    @Test func stepZeroRunsNothing() {
        let scheduler = TestScheduler()
        let ran = Locked(0)
        scheduler.schedule { ran.withLock { $0 += 1 } }
        scheduler.step(0)
        #expect(ran.value == 0)
        #expect(scheduler.pendingCount == 1)
    }

    @Test func disposedActionsUseUpNoStep() {
        let scheduler = TestScheduler()
        let ran = Locked([String]())
        let a = scheduler.schedule { ran.withLock { $0.append("a") } }
        let b = scheduler.schedule { ran.withLock { $0.append("b") } }
        scheduler.schedule { ran.withLock { $0.append("c") } }
        let d = scheduler.schedule(afterDelay: 1) { ran.withLock { $0.append("d") } }
        scheduler.schedule(afterDelay: 2) { ran.withLock { $0.append("e") } }
        a?.dispose()
        b?.dispose()
        d?.dispose()

        scheduler.step()
        #expect(ran.value == ["c"])
        scheduler.step()
        #expect(ran.value == ["c", "e"])
        #expect(scheduler.now == at(2))
    }

    @Test func stepAllSkipsDisposedActionsAndRunsActionsScheduledMeanwhile() {
        let scheduler = TestScheduler()
        let ran = Locked([String]())
        scheduler.schedule {
            ran.withLock { $0.append("a") }
            scheduler.schedule(afterDelay: 5) { ran.withLock { $0.append("a's child") } }
        }
        scheduler.schedule(afterDelay: 1) { ran.withLock { $0.append("b") } }?.dispose()
        scheduler.stepAll()
        #expect(ran.value == ["a", "a's child"])
        #expect(scheduler.now == at(5))
    }

    @Test func pendingCountCountsWhatWillStillRun() {
        let scheduler = TestScheduler()
        #expect(scheduler.pendingCount == 0)
        let oneShot = scheduler.schedule {}
        scheduler.schedule(afterDelay: 5) {}
        let repeating = scheduler.schedule(after: at(1), repeatingEvery: 1) {}
        #expect(scheduler.pendingCount == 3)

        // A live repeating action counts once, however often it has run.
        scheduler.advance(by: 3)
        #expect(scheduler.pendingCount == 2)
        oneShot?.dispose()  // already ran: no change
        #expect(scheduler.pendingCount == 2)
        repeating?.dispose()
        #expect(scheduler.pendingCount == 1)
        repeating?.dispose()
        #expect(scheduler.pendingCount == 1)
        scheduler.stepAll()
        #expect(scheduler.pendingCount == 0)
    }

    @Test func disposedActionsDoNotCount() {
        let scheduler = TestScheduler()
        let disposables = (0..<10).map { index in scheduler.schedule(afterDelay: Double(index)) {} }
        for disposable in disposables.prefix(4) { disposable?.dispose() }
        #expect(scheduler.pendingCount == 6)
    }

    @Test func aRunningOneShotNoLongerCountsButARunningRepeatingDoes() {
        let scheduler = TestScheduler()
        let counts = Locked([Int]())
        scheduler.schedule { counts.withLock { $0.append(scheduler.pendingCount) } }
        scheduler.schedule(after: at(1), repeatingEvery: 1) { counts.withLock { $0.append(scheduler.pendingCount) } }
        scheduler.step(2)
        #expect(counts.value == [1, 1])
    }

    // MARK: The contract: repeating

    @Test func repeatingActionsRecurEveryIntervalOfVirtualTime() {
        let scheduler = TestScheduler()
        let seen = Locked([Date]())
        let repeating = scheduler.schedule(after: at(2), repeatingEvery: 2.5, withLeeway: 100) {
            seen.withLock { $0.append(scheduler.now) }
        }
        scheduler.advance(by: 10)
        #expect(seen.value == [at(2), at(4.5), at(7), at(9.5)])
        repeating?.dispose()
        scheduler.advance(by: 10)
        #expect(seen.value.count == 4)
    }

    @Test func anOverdueRepeatingActionRecursFromWhenItRan() {
        let scheduler = TestScheduler(startDate: at(10))
        let seen = Locked([Date]())
        scheduler.schedule(after: at(3), repeatingEvery: 4) { seen.withLock { $0.append(scheduler.now) } }
        scheduler.advance(by: 8)
        #expect(seen.value == [at(10), at(14), at(18)])
    }

    @Test func aRepeatingActionCanDisposeItself() {
        let scheduler = TestScheduler()
        let count = Locked(0)
        let slot = SerialDisposable()
        slot.disposable = scheduler.schedule(after: at(0), repeatingEvery: 1) {
            if count.withLock({ $0 += 1; return $0 }) == 3 { slot.dispose() }
        }
        scheduler.advance(by: 10)
        #expect(count.value == 3)
        #expect(scheduler.pendingCount == 0)
        scheduler.stepAll()  // returns: nothing live
    }

    // MARK: The contract: disposables and current scheduler

    @Test func disposablesReportDisposalAndAreIdempotent() throws {
        let scheduler = TestScheduler()
        let disposable = try #require(scheduler.schedule {})
        #expect(!disposable.isDisposed)
        disposable.dispose()
        disposable.dispose()
        #expect(disposable.isDisposed)
        #expect(scheduler.pendingCount == 0)
    }

    // The scheduler reuses a finished action's storage for the next one scheduled; a disposable
    // that outlives its action must still dispose nothing but that action.

    @Test func disposingAnActionThatRanLeavesTheNextActionAlone() {
        let scheduler = TestScheduler()
        let ran = Locked([String]())
        let first = scheduler.schedule { ran.withLock { $0.append("first") } }
        scheduler.step()
        let second = scheduler.schedule { ran.withLock { $0.append("second") } }
        first?.dispose()
        #expect(first?.isDisposed == true)
        #expect(second?.isDisposed == false)
        #expect(scheduler.pendingCount == 1)
        scheduler.step()
        #expect(ran.value == ["first", "second"])
    }

    @Test func disposingAnActionTwiceAfterItWasSkippedLeavesTheNextActionAlone() {
        let scheduler = TestScheduler()
        let ran = Locked([String]())
        let skipped = scheduler.schedule { ran.withLock { $0.append("skipped") } }
        skipped?.dispose()
        scheduler.stepAll()
        scheduler.schedule { ran.withLock { $0.append("next") } }
        skipped?.dispose()
        #expect(scheduler.pendingCount == 1)
        scheduler.stepAll()
        #expect(ran.value == ["next"])
    }

    @Test func disposingARepeatingActionAgainAfterItStoppedLeavesTheNextActionAlone() {
        let scheduler = TestScheduler()
        let ran = Locked([String]())
        let repeating = SerialDisposable()
        repeating.disposable = scheduler.schedule(after: at(1), repeatingEvery: 1) {
            ran.withLock { $0.append("repeating") }
            repeating.disposable?.dispose()
        }
        scheduler.advance(by: 1)
        scheduler.schedule { ran.withLock { $0.append("next") } }
        repeating.disposable?.dispose()
        #expect(scheduler.pendingCount == 1)
        scheduler.advance(by: 5)
        #expect(ran.value == ["repeating", "next"])
    }

    @Test func disposablesOfSweptActionsLeaveTheirSuccessorsAlone() {
        // Enough disposed actions that the scheduler sweeps them out of its queue at once.
        let scheduler = TestScheduler()
        let ran = Locked(0)
        let old = (0..<3_000).map { index in scheduler.schedule(afterDelay: Double(index)) {} }
        for disposable in old { disposable?.dispose() }
        #expect(scheduler.pendingCount == 0)
        for index in 0..<3_000 {
            scheduler.schedule(afterDelay: Double(index)) { ran.withLock { $0 += 1 } }
        }
        for disposable in old { disposable?.dispose() }
        #expect(scheduler.pendingCount == 3_000)
        scheduler.stepAll()
        #expect(ran.value == 3_000)
    }

    @Test func disposablesOfSweptRepeatingActionsLeaveTheirSuccessorsAlone() {
        let scheduler = TestScheduler()
        let ran = Locked(0)
        let old = (0..<3_000).map { index in scheduler.schedule(after: at(Double(index)), repeatingEvery: 1) {} }
        for disposable in old { disposable?.dispose() }
        #expect(scheduler.pendingCount == 0)
        let new = (0..<3_000).map { _ in
            scheduler.schedule(after: at(1), repeatingEvery: 1) { ran.withLock { $0 += 1 } }
        }
        for disposable in old { disposable?.dispose() }
        #expect(scheduler.pendingCount == 3_000)
        scheduler.advance(by: 3)
        #expect(ran.value == 9_000)
        for disposable in new { disposable?.dispose() }
        scheduler.advance(by: 3)
        #expect(ran.value == 9_000)
        #expect(scheduler.pendingCount == 0)
    }

    @Test func actionsRunAsTheCurrentScheduler() {
        let scheduler = TestScheduler()
        #expect(Scheduler.current !== scheduler)
        let matches = Locked([Bool]())
        scheduler.schedule { matches.withLock { $0.append(Scheduler.current === scheduler) } }
        scheduler.schedule(afterDelay: 1) { matches.withLock { $0.append(Scheduler.current === scheduler) } }
        scheduler.schedule(after: at(2), repeatingEvery: 1) { matches.withLock { $0.append(Scheduler.current === scheduler) } }
        scheduler.scheduleRecursive { _ in matches.withLock { $0.append(Scheduler.current === scheduler) } }
        scheduler.advance(by: 3)
        #expect(matches.value == [true, true, true, true, true])
        #expect(Scheduler.current !== scheduler)
    }

    @Test func describesItself() {
        #expect(TestScheduler().description.contains("TestScheduler"))
    }
}
