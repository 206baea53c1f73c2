import TestSupport
import Foundation
import Schedulers
import XCTest

/// XCTest, because these need the main thread and a main queue drained by its run loop.
final class MainInlineSchedulerTests: XCTestCase {
    private let scheduler = Scheduler.mainInline

    /// Runs the main queue until everything queued on it so far has run (it is FIFO).
    private func drainMainQueue(file: StaticString = #filePath, line: UInt = #line) {
        let drained = Locked(false)
        DispatchQueue.main.async { drained.withLock { $0 = true } }
        XCTAssertTrue(waitUntil { drained.value }, "the main queue did not drain", file: file, line: line)
    }

    override func setUp() {
        super.setUp()
        XCTAssertTrue(Thread.isMainThread)
        drainMainQueue()  // start with nothing pending
    }

    func testIsOneSchedulerOfItsOwnClass() {
        XCTAssertTrue(Scheduler.mainInline === Scheduler.mainInline)
        XCTAssertTrue(Scheduler.mainInline is MainInlineScheduler)
        XCTAssertFalse(Scheduler.mainInline === Scheduler.main)
        XCTAssertTrue(Scheduler.mainInline.description.contains("MainInlineScheduler"))
    }

    // MARK: Inline or queued

    func testRunsInlineOnTheMainQueueWhenNothingIsPending() {
        let ran = Locked(false)
        let disposable = scheduler.schedule { ran.withLock { $0 = true } }
        XCTAssertTrue(ran.value, "did not run before schedule returned")
        XCTAssertNil(disposable, "an action that already ran cannot be cancelled")
    }

    func testRunsInlineInsideMainQueueWork() {
        // A plain main-queue block, and an action of Scheduler.main (a queue targeting main).
        let inline = Locked<[Bool]>([])
        DispatchQueue.main.async {
            let ran = Locked(false)
            Scheduler.mainInline.schedule { ran.withLock { $0 = true } }
            inline.withLock { $0.append(ran.value) }
        }
        Scheduler.main.schedule {
            let ran = Locked(false)
            Scheduler.mainInline.schedule { ran.withLock { $0 = true } }
            inline.withLock { $0.append(ran.value) }
        }
        XCTAssertTrue(waitUntil { inline.value.count == 2 })
        XCTAssertEqual(inline.value, [true, true])
    }

    func testIsQueuedWhenCalledOffTheMainQueue() {
        let ranOnMainThread = Locked<Bool?>(nil)
        let disposable = DispatchQueue.global().sync {
            Scheduler.mainInline.schedule { ranOnMainThread.withLock { $0 = Thread.isMainThread } }
        }
        XCTAssertNotNil(disposable)
        XCTAssertNil(ranOnMainThread.value, "ran off the main queue")  // the main thread is here, not draining
        XCTAssertTrue(waitUntil { ranOnMainThread.value != nil })
        XCTAssertEqual(ranOnMainThread.value, true)
    }

    func testMainStaysAlwaysAsynchronous() {
        let ran = Locked(false)
        XCTAssertNotNil(Scheduler.main.schedule { ran.withLock { $0 = true } })
        XCTAssertFalse(ran.value)
        XCTAssertTrue(waitUntil { ran.value })
    }

    // MARK: Order

    func testWorkQueuedFromABackgroundThreadIsNotOvertakenByACallOnMain() {
        let order = Locked<[String]>([])
        DispatchQueue.global().sync {
            _ = Scheduler.mainInline.schedule { order.withLock { $0.append("background") } }
        }
        let disposable = scheduler.schedule { order.withLock { $0.append("main") } }
        XCTAssertNotNil(disposable, "queued behind the background action, not run inline")
        XCTAssertEqual(order.value, [])
        drainMainQueue()
        XCTAssertEqual(order.value, ["background", "main"])
        scheduler.schedule { order.withLock { $0.append("inline again") } }
        XCTAssertEqual(order.value, ["background", "main", "inline again"])
    }

    func testAnActionScheduledFromAnInlineActionIsQueuedBehindIt() {
        // Decided: queued, not run inline in the middle of the outer action (as RxSwift's
        // MainScheduler and ReactiveSwift's UIScheduler do), so it runs after the outer one
        // returns, and a later call on main is queued behind it.
        let events = Locked<[String]>([])
        scheduler.schedule {
            events.withLock { $0.append("outer start") }
            let disposable = Scheduler.mainInline.schedule { events.withLock { $0.append("inner") } }
            events.withLock { $0.append("outer end, inner queued: \(disposable != nil)") }
        }
        scheduler.schedule { events.withLock { $0.append("later call on main") } }
        XCTAssertEqual(events.value, ["outer start", "outer end, inner queued: true"])
        drainMainQueue()
        XCTAssertEqual(events.value, ["outer start", "outer end, inner queued: true", "inner", "later call on main"])
    }

    func testAnActionScheduledFromAQueuedActionIsQueuedToo() {
        let events = Locked<[String]>([])
        DispatchQueue.global().sync {
            _ = Scheduler.mainInline.schedule {
                Scheduler.mainInline.schedule { events.withLock { $0.append("inner") } }
                events.withLock { $0.append("outer end") }
            }
        }
        XCTAssertTrue(waitUntil { events.value.count == 2 })
        XCTAssertEqual(events.value, ["outer end", "inner"])
    }

    func testOrderIsPreservedAcrossRandomMixesOfCallersAndDrains() {
        let seed: UInt64 = 0x1402_0393_2704
        var random = SeededRandom(seed: seed)
        let order = Locked<[Int]>([])
        var inlineCalls = 0
        var queuedMainCalls = 0
        let count = 600
        for index in 0..<count {
            switch random.next() % 3 {
            case 0:
                DispatchQueue.global().sync {
                    _ = Scheduler.mainInline.schedule { order.withLock { $0.append(index) } }
                }
            case 1:
                scheduler.schedule { order.withLock { $0.append(index) } }
                if order.value.last == index { inlineCalls += 1 } else { queuedMainCalls += 1 }
            default:
                _ = RunLoop.current.run(mode: .default, before: Date())  // drain some or all
            }
        }
        drainMainQueue()
        XCTAssertEqual(order.value, order.value.sorted(), "out of order with seed \(seed)")
        XCTAssertEqual(order.value.count, Set(order.value).count, "ran twice with seed \(seed)")
        // Both paths were exercised (so the test can fail either way).
        XCTAssertGreaterThan(inlineCalls, 0)
        XCTAssertGreaterThan(queuedMainCalls, 0)
    }

    func testEachCallersOrderHoldsUnderConcurrentCalls() {
        // A background thread and the main thread schedule at once; each one's actions run in
        // the order it scheduled them, whichever path each call took.
        let perCaller = 2_000
        let ran = Locked<[String: [Int]]>([:])
        let backgroundFinished = Locked(false)
        DispatchQueue.global().async {
            for index in 0..<perCaller {
                Scheduler.mainInline.schedule { ran.withLock { $0["background", default: []].append(index) } }
            }
            backgroundFinished.withLock { $0 = true }
        }
        for index in 0..<perCaller {
            scheduler.schedule { ran.withLock { $0["main", default: []].append(index) } }
            if index % 50 == 0 { _ = RunLoop.current.run(mode: .default, before: Date()) }
        }
        XCTAssertTrue(waitUntil { backgroundFinished.value })
        drainMainQueue()
        XCTAssertEqual(ran.value["main"], Array(0..<perCaller))
        XCTAssertEqual(ran.value["background"], Array(0..<perCaller))
    }

    // MARK: Current scheduler

    func testActionsRunAsTheCurrentSchedulerAndRestoreIt() {
        let inline = Locked<Bool?>(nil)
        scheduler.schedule { inline.withLock { $0 = Scheduler.current === Scheduler.mainInline } }
        XCTAssertEqual(inline.value, true)
        XCTAssertTrue(Scheduler.current === Scheduler.main, "not restored after an inline action")

        let queued = Locked<Bool?>(nil)
        DispatchQueue.global().sync {
            _ = Scheduler.mainInline.schedule { queued.withLock { $0 = Scheduler.current === Scheduler.mainInline } }
        }
        XCTAssertTrue(waitUntil { queued.value != nil })
        XCTAssertEqual(queued.value, true)
    }

    // MARK: Disposal

    func testDisposingAQueuedActionStopsItReleasesItAndUnblocksInlineRuns() throws {
        let ran = Locked(false)
        var token: Token? = Token()
        let weakToken = Weak(token!)
        let disposable = try XCTUnwrap(
            DispatchQueue.global().sync { [token] in
                Scheduler.mainInline.schedule {
                    _ = token
                    ran.withLock { $0 = true }
                }
            })
        token = nil
        disposable.dispose()
        XCTAssertTrue(disposable.isDisposed)
        XCTAssertNil(weakToken.object, "the closure was not released at disposal")
        drainMainQueue()
        XCTAssertFalse(ran.value)
        // The disposed action no longer counts as pending: the next call on main is inline.
        let inline = Locked(false)
        scheduler.schedule { inline.withLock { $0 = true } }
        XCTAssertTrue(inline.value)
    }

    // MARK: Delayed, repeating and recursive work

    func testDelayedWorkIsQueuedLikeMainAndRunsAsThisScheduler() {
        let result = Locked<(onMainThread: Bool, current: Bool)?>(nil)
        let disposable = scheduler.schedule(after: Date.distantPast) {
            result.withLock { $0 = (Thread.isMainThread, Scheduler.current === Scheduler.mainInline) }
        }
        XCTAssertNotNil(disposable)
        XCTAssertNil(result.value, "delayed work ran inline")
        XCTAssertTrue(waitUntil { result.value != nil })
        XCTAssertEqual(result.value?.onMainThread, true)
        XCTAssertEqual(result.value?.current, true)
    }

    func testRepeatingWorkRunsOnMainAsThisSchedulerUntilDisposed() throws {
        let ticks = Locked<[Bool]>([])
        let disposable = try XCTUnwrap(
            scheduler.schedule(after: Date(), repeatingEvery: 0.01) {
                ticks.withLock { $0.append(Thread.isMainThread && Scheduler.current === Scheduler.mainInline) }
            })
        XCTAssertTrue(waitUntil { ticks.value.count >= 3 })
        disposable.dispose()
        let count = ticks.value.count
        drainMainQueue()
        _ = RunLoop.current.run(mode: .default, before: Date(timeIntervalSinceNow: 0.05))
        XCTAssertEqual(ticks.value.count, count, "ticked after disposal")
        XCTAssertTrue(ticks.value.allSatisfy { $0 })
    }

    func testScheduleRecursiveOnTheMainQueueRunsTheWholeChainInlineInOrder() {
        // Each reschedule is a `schedule` made after the iteration returned, with nothing
        // pending: inline again. The chain is iterative, so 10,000 iterations do not grow the stack.
        let iterations = Locked<[Int]>([])
        let disposable = scheduler.scheduleRecursive { reschedule in
            let count = iterations.withLock { $0.append($0.count + 1); return $0.count }
            if count < 10_000 { reschedule() }
        }
        XCTAssertEqual(iterations.value, Array(1...10_000), "not all inline, or out of order")
        XCTAssertNotNil(disposable)
    }

    func testScheduleRecursiveFromABackgroundThreadRunsQueuedInOrder() {
        let iterations = Locked<[Int]>([])
        DispatchQueue.global().sync {
            _ = Scheduler.mainInline.scheduleRecursive { reschedule in
                let count = iterations.withLock { $0.append($0.count + 1); return $0.count }
                if count < 100 { reschedule() }
            }
        }
        XCTAssertEqual(iterations.value, [])
        XCTAssertTrue(waitUntil { iterations.value.count == 100 })
        XCTAssertEqual(iterations.value, Array(1...100))
    }

    // MARK: Nested work inside delayed and repeating actions

    /// Every form that is not a plain `schedule`.
    private static let delayedForms = [
        "after: Date", "afterDelay:", "after: Duration", "after: Date, repeatingEvery:",
        "after: Duration, repeatingEvery:",
    ]

    /// Schedules `outer` with the delayed or repeating form named `form`, due at once.
    private func schedule(_ form: String, _ outer: @escaping @Sendable () -> Void) -> (any Disposable)? {
        let past = Date(timeIntervalSinceNow: -1)
        switch form {
        case "after: Date": return scheduler.schedule(after: past, outer)
        case "afterDelay:": return scheduler.schedule(afterDelay: 0, outer)
        case "after: Duration": return scheduler.schedule(after: .zero, outer)
        case "after: Date, repeatingEvery:": return scheduler.schedule(after: past, repeatingEvery: 3600, outer)
        default: return scheduler.schedule(after: .zero, repeatingEvery: .seconds(3600), outer)
        }
    }

    /// A `schedule` made inside a delayed or repeating action is queued behind it, as from a plain
    /// `schedule`'s action: "outer start, outer end, inner", never "outer start, inner, outer end".
    func testAnActionScheduledFromADelayedOrRepeatingActionRunsAfterIt() {
        for form in Self.delayedForms {
            let events = Locked<[String]>([])
            let outer: @Sendable () -> Void = {
                events.withLock { $0.append("outer start") }
                Scheduler.mainInline.schedule { events.withLock { $0.append("inner") } }
                events.withLock { $0.append("outer end") }
            }
            let scheduled = schedule(form, outer)
            XCTAssertTrue(waitUntil { events.value.count == 3 }, form)
            scheduled?.dispose()  // the repeating forms
            XCTAssertEqual(events.value, ["outer start", "outer end", "inner"], form)
        }
    }

    /// A chain started inside a delayed or repeating action does not run inline in the middle of
    /// it: its first iteration waits until the action has returned.
    func testAChainStartedFromADelayedOrRepeatingActionRunsAfterIt() {
        for form in Self.delayedForms {
            let events = Locked<[String]>([])
            let outer: @Sendable () -> Void = {
                events.withLock { $0.append("outer start") }
                Scheduler.mainInline.scheduleRecursive { reschedule in
                    let count = events.withLock { events in
                        events.append("iteration")
                        return events.count { $0 == "iteration" }
                    }
                    if count < 3 { reschedule() }
                }
                events.withLock { $0.append("outer end") }
            }
            let scheduled = schedule(form, outer)
            XCTAssertTrue(waitUntil { events.value.count == 5 }, form)
            scheduled?.dispose()  // the repeating forms
            XCTAssertEqual(events.value, ["outer start", "outer end", "iteration", "iteration", "iteration"], form)
        }
    }
}
