import Foundation

/// Blocks the calling thread while running its run loop, until some work says it is done or a
/// timeout passes: RxBlocking's `RunLoopLock`, as public API.
///
/// On Linux the main queue drains only while the main thread runs its run loop, so a test or a
/// command-line tool that waits on a semaphore for work delivered to ``Scheduler/main`` deadlocks.
/// Waiting here runs the run loop instead, so that work runs, on the main thread:
///
/// ```swift
/// try RunLoopBlocker.wait(timeout: 2) { done in
///     Scheduler.main.schedule { done() }
/// }
/// ```
///
/// Thread contract:
/// - `body` runs first, synchronously, on the calling thread. It starts the work and hands `done`
///   to it. `done` may be called from any thread, at any time (even inside `body`); only the
///   first call counts, and a call after the wait has ended does nothing.
/// - While waiting, the calling thread runs its own run loop in the default mode: on the main
///   thread that delivers main-queue work, timers and run-loop sources there, on the main thread.
/// - Waits nest: work that a wait runs may itself wait. An inner wait ends on its own `done`;
///   an outer one whose `done` came first ends as soon as the inner one returns. (Work that runs
///   the run loop by other means, such as `RunLoop.run(until:)`, may swallow the stop request
///   of a wait around it: that wait then ends the next time its run loop wakes, at the latest
///   at its timeout, and still returns normally.)
/// - Inside a main-queue block, no other main-queue work runs until that block returns
///   (a nested run loop does not drain the main queue). A wait started there therefore cannot be
///   ended by main-queue work; end it from another thread or it times out.
/// - No busy spin: the thread sleeps in the kernel until something wakes its run loop.
///
/// It blocks a thread, so do not call it from Swift Concurrency code (a task or an actor): that
/// would starve the cooperative pool. Use `async` APIs there.
public enum RunLoopBlocker {
    /// Thrown by ``wait(timeout:_:)`` when its timeout passed before `done` was called.
    public struct TimeoutError: Error, CustomStringConvertible, Equatable {
        /// A timeout error.
        public init() {}

        public var description: String {
            "RunLoopBlocker.TimeoutError: the timeout passed before done() was called"
        }
    }

    /// Runs `body`, then runs the current thread's run loop until `done` is called or `timeout`
    /// seconds have passed (measured on the monotonic clock).
    ///
    /// - Parameters:
    ///   - timeout: seconds to wait at most. Zero or less means "do not wait": it returns if
    ///     `done` was called inside `body`, else throws at once. `.infinity` waits for ever.
    ///   - body: starts the work and hands it `done`, which may be called from any thread, once
    ///     or more; calls after the first, or after the wait has ended, do nothing.
    /// - Throws: ``TimeoutError`` if `timeout` passed first.
    /// - Precondition: `timeout` is not NaN.
    public static func wait(timeout: TimeInterval, _ body: (_ done: @escaping @Sendable () -> Void) -> Void) throws {
        if timeout.isNaN { badInput("RunLoopBlocker.wait(timeout:_:): the timeout is NaN") }
        let waiter = RunLoopWaiter()
        body { waiter.signal() }
        guard waiter.run(timeout: timeout) else { throw TimeoutError() }
    }
}
