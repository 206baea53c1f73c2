import Dispatch
import Foundation
@testable import Schedulers
import Testing
import TestSupport

/// A queue scheduler hands Dispatch its `ScheduledAction` as a C function's context
/// (Sources/Schedulers/Queue/FunctionSubmission.swift), not as a block, on Linux; these check
/// that the direct path is the one in use exactly where it should be, and that both paths keep
/// every promise (CI runs this file, and the whole suite, in a `SCHEDULERS_PORTABLE` build too).
@Suite(.ownThread, .timeLimit(.minutes(5))) struct FunctionSubmissionTests {
    /// Whether this build should submit directly: on Linux unless built with
    /// `SCHEDULERS_PORTABLE` (which makes Linux take the `async` path Apple platforms take).
    static let directSubmissionExpected: Bool = {
        #if os(Linux) && !SCHEDULERS_PORTABLE
        true
        #else
        false
        #endif
    }()

    /// On Linux: if a new toolchain's Dispatch overlay keeps its C queue somewhere else,
    /// submission falls back to `async`: correct, but ~600 instructions slower per action. This
    /// is what notices. In a portable build (and on Apple platforms), this checks that the suite
    /// really ran the `async` path it is meant to prove.
    @Test func queuesAreSubmittedDirectlyExactlyWhereTheBuildSays() {
        let expected = Self.directSubmissionExpected
        #expect(FunctionSubmission(DispatchQueue(label: "direct")).isDirect == expected)
        #expect(FunctionSubmission(.main).isDirect == expected)
        #expect(FunctionSubmission(.global()).isDirect == expected)
        #expect(TargetQueueScheduler(name: "direct").submission.isDirect == expected)
        #expect((Scheduler.main as! QueueScheduler).submission.isDirect == expected)
    }

    /// CI asks for the portable build with `SCHEDULERS_PORTABLE=1` in the environment of both
    /// `swift build` and `swift test`. Should the manifest ever stop turning that into the
    /// define, the test above would expect and find the direct path, and pass; this would not.
    @Test func aPortableBuildAskedForIsAPortableBuild() {
        let asked = !["", "0"].contains(ProcessInfo.processInfo.environment["SCHEDULERS_PORTABLE"] ?? "")
        #if SCHEDULERS_PORTABLE
        let made = true
        #else
        let made = false
        #endif
        if asked { #expect(made, "SCHEDULERS_PORTABLE is set, but this test target was not built with it") }
    }

    @Test func anActionRunsOnItsQueueAsCurrentInOrderWithTheQueuesOtherWork() {
        let key = DispatchSpecificKey<Int>()
        let queue = DispatchQueue(label: "direct.order")
        queue.setSpecific(key: key, value: 7)
        let scheduler = QueueScheduler(queue: queue)
        let log = Locked<[String]>([])
        let gate = DispatchSemaphore(value: 0)
        queue.async { gate.wait() }  // holds the queue so that everything below queues up
        for index in 0..<100 {
            scheduler.schedule {
                let where_ = DispatchQueue.getSpecific(key: key) == 7 && scheduler.isCurrent ? "ok" : "wrong place"
                log.withLock { $0.append("s\(index) \(where_)") }
            }
            queue.async { log.withLock { $0.append("a\(index)") } }
        }
        gate.signal()
        #expect(waitUntil { log.withLock { $0.count } == 200 })
        let expected = (0..<100).flatMap { ["s\($0) ok", "a\($0)"] }
        #expect(log.withLock { $0 } == expected)
    }

    @Test func aDisposedActionNeverRunsAndIsReleasedAtDisposal() {
        let queue = DispatchQueue(label: "direct.dispose")
        let scheduler = QueueScheduler(queue: queue)
        let gate = DispatchSemaphore(value: 0)
        queue.async { gate.wait() }
        let ran = Locked(false)
        weak var weakCapture: Capture?
        let disposable: (any Disposable)? = {
            let capture = Capture()
            weakCapture = capture
            return scheduler.schedule { withExtendedLifetime(capture) { ran.withLock { $0 = true } } }
        }()
        #expect(weakCapture != nil)
        disposable?.dispose()
        #expect(weakCapture == nil)  // released by dispose(), while the queue is still blocked
        gate.signal()
        queue.sync {}
        #expect(!ran.withLock { $0 })
        #expect(disposable?.isDisposed == true)
    }

    /// Dispatch holds the action until it has run, then lets it go: nothing leaks whether or not
    /// the caller kept the disposable.
    @Test func aSubmittedActionIsFreedOnceItHasRun() {
        let queue = DispatchQueue(label: "direct.free")
        let scheduler = QueueScheduler(queue: queue)
        let gate = DispatchSemaphore(value: 0)
        queue.async { gate.wait() }
        weak var weakAction: AnyObject?
        weak var weakCapture: Capture?
        do {
            let capture = Capture()
            weakCapture = capture
            weakAction = scheduler.schedule { withExtendedLifetime(capture) {} }
        }
        #expect(weakAction != nil)  // dropped by the caller, still held for the queue
        gate.signal()
        queue.sync {}
        #expect(waitUntil { weakAction == nil && weakCapture == nil })
    }
}

private final class Capture: Sendable {}

/// Dispatch drops work due "never" (`DISPATCH_TIME_FOREVER`) without calling it, so a reference
/// handed to it with such a deadline would never come back: the action, its captures and its
/// scheduler would leak. (Found in review: these failed before the guard in `asyncAfter`.)
@Suite(.ownThread, .timeLimit(.minutes(5))) struct FunctionSubmissionNeverDueTests {
    @Test func anActionDueNeverLeaksNothingWhenTheCallerDropsIt() {
        for schedule in Self.neverDue {
            var scheduler: TargetQueueScheduler? = TargetQueueScheduler(name: "never.dropped")
            weak var weakScheduler: TargetQueueScheduler?
            weakScheduler = scheduler
            weak var weakAction: AnyObject?
            weak var weakCapture: Capture?
            do {
                let capture = Capture()
                weakCapture = capture
                weakAction = schedule(scheduler!) { withExtendedLifetime(capture) {} }
            }
            scheduler = nil
            #expect(waitUntil { weakAction == nil && weakCapture == nil && weakScheduler == nil })
        }
    }

    @Test func anActionDueNeverIsFreedOnceDisposed() {
        let scheduler = TargetQueueScheduler(name: "never.disposed")
        for schedule in Self.neverDue {
            weak var weakAction: AnyObject?
            do {
                let disposable = schedule(scheduler) {}
                weakAction = disposable
                disposable?.dispose()
            }
            #expect(waitUntil { weakAction == nil })
        }
    }

    /// Both clocks' ways of saying "never": a date past Dispatch's wall clock, and a duration
    /// that saturates `DispatchTime` (see `Duration.clampedNanoseconds`).
    private static let neverDue: [@Sendable (QueueScheduler, @escaping @Sendable () -> Void) -> (any Disposable)?] = [
        { scheduler, action in scheduler.schedule(after: .distantFuture, action) },
        { scheduler, action in scheduler.schedule(after: Duration.seconds(Int64.max), action) },
    ]
}
