#if canImport(XCTest)
import Foundation
import XCTest

/// XCTest's one line: a test class that inherits from this one runs each of its test methods,
/// synchronous and `async`, in a virtual world of its own.
///
/// ```swift
/// final class SearchModelTests: VirtualTimeTestCase {
///     @MainActor func testDebounces() async throws {
///         let model = SearchModel(backend: { ["\($0)!"] })   // no clock injected
///         model.queryChanged("s")
///         try await Task.sleep(for: .milliseconds(300))      // virtual: returns at once
///         XCTAssertEqual(model.results, ["s!"])
///     }
/// }
/// ```
///
/// - **What it does.** Each test method runs inside ``TestScheduler/withCapturedTasks(_:)`` of
///   a new ``scheduler``, on XCTest's thread: the tasks it starts, and theirs, run in that
///   scheduler's virtual time, and their sleeps on a real clock sleep in virtual time (Linux).
/// - **Time moves while the method waits**, by itself, as with `.virtualTime`: while XCTest
///   waits for an `async` method (it runs the method in a task and spins the run loop until
///   it ends) or for an expectation (`wait(for:timeout:)`), each turn of the run loop runs
///   what is due now, and when nothing is, moves time to the earliest pending due time, one
///   move a turn, so a wait ends where it is satisfied. A synchronous method that never waits
///   moves time only when it drives ``scheduler`` (`advance(by:)`), exactly, as the
///   contract's first shape does.
/// - **The method's own sleeps let time pass.** An `async` method that sleeps until a time
///   sees everything due by then first, as a `.virtualTime` test does: XCTest runs it in a task
///   it starts and then waits for, and the task XCTest waits for is the world's body (the last
///   one started before the wait; also, in a synchronous method that waits, the last task it
///   started: its wake-ups come after the rest of their moment).
/// - **A method that would wait for ever fails instead.** XCTest on Linux has no time limit
///   of its own for a method. A method that waits while time moves on without end (a
///   repeating action, a polling loop nobody stops) is reported after ten thousand moves of
///   time in a row that ran none of its jobs; one that can never go on (nothing due, nothing
///   pending, no Dispatch work of its world in flight: an `AsyncStream` nobody finishes) after
///   ten of the scheduler's `waitWarningDelay`s of real time. Either way its task is then
///   cancelled: its sleeps throw and a stream it iterates ends, so a method waiting on those
///   ends (a wait that ignores cancellation, such as a continuation nobody resumes, does not).
/// - **When the method ends**, work still pending stays on its scheduler, which the next
///   method replaces.
open class VirtualTimeTestCase: XCTestCase {
    /// The scheduler of the running test method's world: a new one for each method.
    public private(set) var scheduler = TestScheduler()

    /// Runs the test method (with its `setUp` and `tearDown`, which XCTest runs inside it) in a
    /// capture of a new ``scheduler``, moving time by itself while XCTest spins the run loop.
    override open func invokeTest() {
        let scheduler = TestScheduler()
        self.scheduler = scheduler
        let advance = RunLoopAdvance(scheduler)
        defer { advance.stop() }
        scheduler.withCapturedTasks {
            // XCTest runs an `async` method (and an `async` setUp or tearDown) in a task it
            // starts here and waits for: that task is the body whose sleeps let time pass.
            scheduler.runningTestMethod { super.invokeTest() }
        }
    }
}

/// A timer on the capture's run loop that advances its scheduler automatically, one move of
/// time a firing: it fires only while the test spins the run loop (XCTest's waits), at once
/// again while there is work, and every millisecond of real time while the world is idle
/// (waiting for the outside world: a real callback, a thread).
private struct RunLoopAdvance {
    private let timer: Timer

    init(_ scheduler: TestScheduler) {
        let turns = RunLoopAdvancing()
        timer = Timer(timeInterval: 0.001, repeats: true) { [weak scheduler] timer in
            guard let scheduler, scheduler.advanceAutomaticallyOnce(turns) else { return }
            // Work ran: the next turn of the run loop comes at once.
            timer.fireDate = Date(timeIntervalSinceReferenceDate: 0)
        }
        RunLoop.current.add(timer, forMode: .common)
    }

    func stop() {
        timer.invalidate()
    }
}
#endif
