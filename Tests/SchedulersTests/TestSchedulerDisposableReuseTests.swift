import Foundation
import Schedulers
import Testing
import TestSupport

/// A TestScheduler renames the disposable it handed out last for the next action when nobody
/// else refers to it (Sources/Schedulers/Virtual/VirtualAction.swift, "Reused"). Nobody may be
/// able to tell: each test here fails if a disposable someone still refers to, strongly or
/// weakly, were renamed, or if a renamed one kept anything of the action it named before.
@Suite(.ownThread, .timeLimit(.minutes(5))) struct TestSchedulerDisposableReuseTests {
    @Test func aKeptDisposableStillNamesItsActionAfterLaterSchedules() {
        let scheduler = TestScheduler()
        let ran = Locked<[Int]>([])
        let first = scheduler.schedule(afterDelay: 1.0) { ran.withLock { $0.append(1) } }
        // Discarded: the second's disposable may be renamed for the third, never the first's.
        scheduler.schedule(afterDelay: 2.0) { ran.withLock { $0.append(2) } }
        let third = scheduler.schedule(afterDelay: 3.0) { ran.withLock { $0.append(3) } }
        let firstObject: AnyObject = first!, thirdObject: AnyObject = third!
        #expect(ObjectIdentifier(firstObject) != ObjectIdentifier(thirdObject))
        first!.dispose()
        #expect(first!.isDisposed)
        #expect(!third!.isDisposed)
        scheduler.advance(by: 5.0)
        #expect(ran.value == [2, 3])
    }

    @Test func aDisposableDisposedAndDroppedComesBackUndisposedForTheNextAction() {
        let scheduler = TestScheduler()
        let ran = Locked(0)
        for round in 1...100 {
            // Each one disposed, then dropped: whether it is renamed or not, the next action's
            // disposable reads not disposed, and disposing the old one stopped only its action.
            var disposable = scheduler.schedule { ran.withLock { $0 += 1_000 } }
            disposable!.dispose()
            disposable = scheduler.schedule { ran.withLock { $0 += 1 } }
            #expect(!disposable!.isDisposed, "round \(round)")
            disposable = nil
            scheduler.advance(by: 0)
            #expect(ran.value == round)
        }
    }

    @Test func aWeaklyReferencedDisposableIsNeverRenamed() {
        let scheduler = TestScheduler()
        let ran = Locked<[Int]>([])
        var disposable = scheduler.schedule(afterDelay: 1.0) { ran.withLock { $0.append(1) } }
        let weak = Weak(disposable! as AnyObject)
        disposable = nil
        // Renamed, the weakly held object would now name the second action.
        let second = scheduler.schedule(afterDelay: 2.0) { ran.withLock { $0.append(2) } }
        #expect(weak.object == nil, "still kept once another action was scheduled")
        (weak.object as? any Disposable)?.dispose()
        #expect(!second!.isDisposed)
        scheduler.advance(by: 5.0)
        #expect(ran.value == [1, 2])
    }

    @Test func disposablesKeptOnOtherThreadsNameTheirOwnActions() {
        // Four threads schedule at once, each keeping every other disposable and disposing it:
        // exactly the kept ones' actions must not run, whichever disposables were renamed.
        let scheduler = TestScheduler()
        let perThread = stressCount(2_000)
        let ran = Locked<Set<Int>>([])
        let expected = Locked<Set<Int>>([])
        runOnThreads(4) { thread in
            for index in 0..<perThread {
                let id = thread * perThread + index
                let disposable = scheduler.schedule(afterDelay: Double(id % 7)) { ran.withLock { _ = $0.insert(id) } }
                if index % 2 == 0 {
                    disposable!.dispose()
                } else {
                    expected.withLock { _ = $0.insert(id) }
                }
            }
        }
        scheduler.advance(by: 10)
        let wrong = ran.value.symmetricDifference(expected.value)
        #expect(wrong.isEmpty, "\(wrong.count) actions ran though disposed, or did not run though kept, e.g. \(wrong.sorted().prefix(5))")
        #expect(scheduler.pendingCount == 0)
    }

    @Test func theDisposableHandedOutLastDoesNotOutliveItsScheduler() {
        var scheduler: TestScheduler? = TestScheduler()
        let weakScheduler = Weak(scheduler!)
        var disposable = scheduler!.schedule(afterDelay: 1.0) {}
        let weak = Weak(disposable! as AnyObject)
        disposable = nil
        scheduler = nil
        #expect(weakScheduler.object == nil)
        #expect(weak.object == nil, "the scheduler's last disposable outlived it")
    }
}
