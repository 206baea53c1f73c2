import Foundation
import Schedulers
import XCTest

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// XCTest, because these need the main thread (XCTest bodies run there; Swift Testing's don't).
final class RunLoopBlockerTests: XCTestCase {
    /// The failure bound of every wait that `done` should end.
    private static let generousTimeout: TimeInterval = 10

    /// Waits with ``generousTimeout`` and returns whether `done` ended the wait before it.
    /// Returning alone proves little: a wait whose `done` fails to wake the run loop still
    /// returns normally at its timeout, because by then `done` was called.
    private static func endedByDone(_ body: (_ done: @escaping @Sendable () -> Void) -> Void) throws -> Bool {
        let start = DispatchTime.now().uptimeNanoseconds
        try RunLoopBlocker.wait(timeout: generousTimeout, body)
        return TimeInterval(DispatchTime.now().uptimeNanoseconds - start) / 1e9 < generousTimeout
    }

    // MARK: Ending a wait

    func testDrainsMainSchedulerWorkOnTheMainThread() throws {
        XCTAssertTrue(Thread.isMainThread)
        let ranOnMainThread = Locked<Bool?>(nil)
        XCTAssertTrue(
            try Self.endedByDone { done in
                Scheduler.main.schedule {
                    ranOnMainThread.withLock { $0 = Thread.isMainThread }
                    done()
                }
            })
        XCTAssertEqual(ranOnMainThread.value, true)
    }

    func testDoneFromAnotherThreadEndsTheWait() throws {
        XCTAssertTrue(try Self.endedByDone { done in DispatchQueue.global().async { done() } })
    }

    func testDoneCalledInsideBodyEndsTheWait() throws {
        XCTAssertTrue(try Self.endedByDone { done in done() })
        try RunLoopBlocker.wait(timeout: 0) { done in done() }
    }

    func testRunsTimersAndRunLoopBlocksOfTheWaitingThread() throws {
        XCTAssertTrue(
            try Self.endedByDone { done in
                RunLoop.current.add(Timer(timeInterval: 0.01, repeats: false) { _ in done() }, forMode: .default)
            })
        XCTAssertTrue(try Self.endedByDone { done in RunLoop.current.perform { done() } })
    }

    // MARK: Timeouts

    func testThrowsTimeoutErrorWhenDoneIsNeverCalled() {
        let start = Date()
        XCTAssertThrowsError(try RunLoopBlocker.wait(timeout: 0.2) { _ in }) { error in
            XCTAssertTrue(error is RunLoopBlocker.TimeoutError, "\(error)")
        }
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(start), 0.2 - 0.01)  // lower bound only
    }

    func testZeroOrNegativeTimeoutThrowsAtOnce() {
        XCTAssertThrowsError(try RunLoopBlocker.wait(timeout: 0) { _ in })
        XCTAssertThrowsError(try RunLoopBlocker.wait(timeout: -1) { _ in })
    }

    // MARK: Surplus and late `done` calls

    func testDoneTwiceIsHarmless() throws {
        XCTAssertTrue(
            try Self.endedByDone { done in
                DispatchQueue.global().async {
                    done()
                    done()
                }
                DispatchQueue.global().async { done() }
            })
        // A later wait is not ended by the surplus calls.
        XCTAssertThrowsError(try RunLoopBlocker.wait(timeout: 0.2) { _ in })
    }

    func testDoneAfterTheTimeoutIsHarmlessAndEndsNoLaterWait() throws {
        let stale = Locked<(@Sendable () -> Void)?>(nil)
        XCTAssertThrowsError(try RunLoopBlocker.wait(timeout: 0.05) { done in stale.withLock { $0 = done } })
        let staleDone = try XCTUnwrap(stale.value)
        staleDone()  // on the waiting thread, after the wait ended
        DispatchQueue.global().async { staleDone() }  // from another thread
        // This wait must run to its timeout: the stale calls belong to a finished wait.
        XCTAssertThrowsError(try RunLoopBlocker.wait(timeout: 0.3) { _ in }) { error in
            XCTAssertTrue(error is RunLoopBlocker.TimeoutError)
        }
        // And the run loop still works normally afterwards.
        XCTAssertTrue(try Self.endedByDone { done in Scheduler.main.schedule { done() } })
    }

    // MARK: Off the main thread

    func testWorksOffTheMainThread() {
        let outcome = Locked<[String]?>(nil)
        let thread = Thread {
            var steps: [String] = []
            do {
                // Work delivered through this thread's own run loop, then `done` from elsewhere.
                let byTimer = try RunLoopBlockerTests.endedByDone { done in
                    RunLoop.current.add(Timer(timeInterval: 0.01, repeats: false) { _ in done() }, forMode: .default)
                }
                steps.append("timer: \(byTimer)")
                let byOtherThread = try RunLoopBlockerTests.endedByDone { done in
                    DispatchQueue.global().async { done() }
                }
                steps.append("other thread: \(byOtherThread)")
                do {
                    try RunLoopBlocker.wait(timeout: 0.1) { _ in }
                    steps.append("no timeout")
                } catch is RunLoopBlocker.TimeoutError {
                    steps.append("timed out")
                }
            } catch {
                steps.append("\(error)")
            }
            outcome.withLock { $0 = steps }
        }
        thread.start()
        XCTAssertTrue(waitUntil(timeout: 30) { outcome.value != nil })
        XCTAssertEqual(outcome.value, ["timer: true", "other thread: true", "timed out"])
    }

    // MARK: Nesting

    func testNestedWaitStartedFromRunLoopWorkIsEndedByMainQueueWork() throws {
        let events = Locked<[String]>([])
        XCTAssertTrue(
            try Self.endedByDone { outerDone in
                // A run-loop block, not a main-queue block: a wait inside it still drains the main queue.
                RunLoop.current.perform {
                    do {
                        let ended = try RunLoopBlockerTests.endedByDone { innerDone in
                            Scheduler.main.schedule {
                                events.withLock { $0.append("main-queue work") }
                                innerDone()
                            }
                        }
                        events.withLock { $0.append("inner ended by done: \(ended)") }
                    } catch {
                        events.withLock { $0.append("inner threw \(error)") }
                    }
                    outerDone()
                }
            })
        XCTAssertEqual(events.value, ["main-queue work", "inner ended by done: true"])
    }

    func testWaitInsideAMainQueueBlockIsEndedFromAnotherThread() throws {
        let events = Locked<[String]>([])
        XCTAssertTrue(
            try Self.endedByDone { outerDone in
                Scheduler.main.schedule {
                    do {
                        let ended = try RunLoopBlockerTests.endedByDone { innerDone in
                            DispatchQueue.global().async { innerDone() }
                        }
                        events.withLock { $0.append("inner ended by done: \(ended)") }
                    } catch {
                        events.withLock { $0.append("inner threw \(error)") }
                    }
                    outerDone()
                }
            })
        XCTAssertEqual(events.value, ["inner ended by done: true"])
    }

    func testInsideAMainQueueBlockNoOtherMainQueueWorkRunsUntilItReturns() throws {
        // The documented limit: main-queue work cannot end a wait started in a main-queue block.
        let events = Locked<[String]>([])
        XCTAssertTrue(
            try Self.endedByDone { outerDone in
                Scheduler.main.schedule {
                    do {
                        try RunLoopBlocker.wait(timeout: 0.2) { innerDone in
                            Scheduler.main.schedule {
                                events.withLock { $0.append("queued work ran") }
                                innerDone()
                            }
                        }
                        events.withLock { $0.append("inner returned") }
                    } catch {
                        events.withLock { $0.append("inner timed out") }
                    }
                    Scheduler.main.schedule { outerDone() }
                }
            })
        XCTAssertEqual(events.value, ["inner timed out", "queued work ran"])
    }

    func testOuterWaitSignalledDuringAnInnerWaitEndsWhenTheInnerOneReturns() throws {
        // The outer `done` comes first, while the inner wait runs, so its stop request reaches
        // the inner run loop invocation: it must not be lost.
        let events = Locked<[String]>([])
        XCTAssertTrue(
            try Self.endedByDone { outerDone in
                Scheduler.main.schedule {
                    do {
                        let ended = try RunLoopBlockerTests.endedByDone { innerDone in
                            DispatchQueue.global().async {
                                outerDone()
                                innerDone()
                            }
                        }
                        events.withLock { $0.append("inner ended by done: \(ended)") }
                    } catch {
                        events.withLock { $0.append("inner threw \(error)") }
                    }
                }
            }, "the outer wait ran to its timeout")
        XCTAssertEqual(events.value, ["inner ended by done: true"])
    }

    func testThreeLevelsUnwindInOrder() throws {
        let events = Locked<[String]>([])
        @Sendable func level(_ depth: Int) -> Bool {
            let ended = try? RunLoopBlockerTests.endedByDone { done in
                if depth < 3 {
                    RunLoop.current.perform {
                        let ended = level(depth + 1)
                        events.withLock { $0.append("level \(depth + 1) ended by done: \(ended)") }
                        done()
                    }
                } else {
                    Scheduler.main.schedule { done() }
                }
            }
            return ended ?? false
        }
        XCTAssertTrue(level(1))
        XCTAssertEqual(events.value, ["level 3 ended by done: true", "level 2 ended by done: true"])
    }

    // MARK: No busy spin

    /// CPU time of the calling thread, in seconds.
    private static func threadCPUTime() -> TimeInterval {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return TimeInterval(time.tv_sec) + TimeInterval(time.tv_nsec) / 1e9
    }

    /// Seconds of CPU the calling thread uses while a wait of `seconds` runs to its timeout.
    private static func cpuTimeOfWaiting(_ seconds: TimeInterval) -> TimeInterval {
        let before = threadCPUTime()
        XCTAssertThrowsError(try RunLoopBlocker.wait(timeout: seconds) { _ in })
        return threadCPUTime() - before
    }

    // Resource bounds, not speed assertions: a spinning wait burns most of a core (0.4-0.7 s of
    // CPU per second on this shared machine when the parked timer is removed); a sleeping one,
    // about a millisecond. 10% leaves room for a noisy machine and the thread sanitizer.

    func testDoesNotSpinOnTheMainThread() {
        let cpu = Self.cpuTimeOfWaiting(1)
        XCTAssertLessThan(cpu, 0.1, "CPU time while waiting 1 s on the main thread: \(cpu) s")
    }

    func testDoesNotSpinInsideAMainQueueBlock() throws {
        // There the run loop has no main-queue source: without a parked timer it would be empty.
        let cpu = Locked<TimeInterval?>(nil)
        XCTAssertTrue(
            try Self.endedByDone { done in
                Scheduler.main.schedule {
                    let used = RunLoopBlockerTests.cpuTimeOfWaiting(1)
                    cpu.withLock { $0 = used }
                    done()
                }
            })
        let used = try XCTUnwrap(cpu.value)
        XCTAssertLessThan(used, 0.1, "CPU time while waiting 1 s inside a main-queue block: \(used) s")
    }

    func testDoesNotSpinOnAThreadWithNoRunLoopSources() {
        let cpu = Locked<TimeInterval?>(nil)
        let thread = Thread {
            let used = RunLoopBlockerTests.cpuTimeOfWaiting(1)
            cpu.withLock { $0 = used }
        }
        thread.start()
        XCTAssertTrue(waitUntil(timeout: 30) { cpu.value != nil })
        let used = cpu.value ?? .infinity
        XCTAssertLessThan(used, 0.1, "CPU time while waiting 1 s on a new thread: \(used) s")
    }
}
