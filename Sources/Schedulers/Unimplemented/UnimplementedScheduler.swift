import Foundation

/// A scheduler for tests that must not schedule: every use (each `schedule` form, its `clock`'s
/// `sleep`) is reported as a failure of the running test, naming the call and `description`,
/// and runs nothing (a sleep throws `CancellationError`). Reading `now` is not a use.
///
/// Give it to code whose path under test must schedule nothing, as pointfree's
/// combine-schedulers and swift-clocks offer for Combine and for clocks (the testing article's
/// "What a test is told" runs this example):
///
/// ```swift
/// @Test func aCacheHitSchedulesNothing() {
///     let scheduler = UnimplementedScheduler("cache hit")
///     let cache = ExampleCache(scheduler: scheduler, values: ["k": "v"])
///     // Any use of the scheduler in value(for:) fails this test.
///     #expect(cache.value(for: "k") == "v")
/// }
/// ```
///
/// Each use is reported the way a ``TestScheduler`` warning is: an issue of the running Swift
/// Testing test (from the test's own task or a task it started), else a failure of the running
/// XCTest test case, else a line on standard error; its first line begins with
/// "Schedulers warning: " and names the call, the description, and where the scheduler was made.
/// A test that expects a use wraps it in Swift Testing's `withKnownIssue`.
///
/// What each use returns: every `schedule` form and ``scheduleRecursive(_:)`` return nil (no
/// action was scheduled, so there is nothing to dispose) and release the action without running
/// it, on the calling thread, before returning; `sleep(for:)` and `sleep(until:)` on the
/// scheduler, and a sleep on ``clock``, throw `CancellationError`; a
/// ``Scheduler/timer(every:leeway:)`` sequence ends without a tick. ``Scheduler/now`` is the
/// wall clock's, as for any ``Scheduler``, and reading it reports nothing.
public final class UnimplementedScheduler: Scheduler, @unchecked Sendable {
    // `@unchecked`: every stored property is immutable.

    /// What the test said this scheduler stands for, shown in every report.
    let unimplementedDescription: String
    /// Where it was made, shown in every report and used as the source location.
    let fileID: StaticString
    let line: UInt

    /// Creates a scheduler whose every use fails the running test.
    ///
    /// - Parameters:
    ///   - description: What it stands for (for example "cache hit"), named in each report and
    ///     used as the scheduler's ``Scheduler/name`` when not empty.
    ///   - fileID: The file the reports are attributed to: the caller's, by default.
    ///   - line: The line the reports are attributed to: the caller's, by default.
    public init(_ description: String = "", fileID: StaticString = #fileID, line: UInt = #line) {
        unimplementedDescription = description
        self.fileID = fileID
        self.line = line
        super.init(name: description.isEmpty ? nil : description)
    }

    /// A clock whose `sleep` is a use of this scheduler: reported as a failure of the running
    /// test, it throws `CancellationError` at once. Its `now` never moves, and reading it
    /// reports nothing.
    public var clock: some Clock<Duration> {
        UnimplementedClock(scheduler: self)
    }

    /// A use: reports `schedule(_:)` as a failure of the running test,
    /// then releases `action` without running it, on the calling thread, before returning.
    ///
    /// - Parameter action: The work, never run.
    /// - Returns: nil: nothing was scheduled, so there is nothing to dispose.
    @discardableResult
    public override func schedule(_ action: @escaping @Sendable () -> Void) -> (any Disposable)? {
        reportUse("schedule(_:)")
    }

    /// A use: reports `schedule(after:_:)` with a `Date` as a failure of the running test,
    /// then releases `action` without running it, on the calling thread, before returning.
    ///
    /// - Parameters:
    ///   - date: Ignored.
    ///   - action: The work, never run.
    /// - Returns: nil: nothing was scheduled, so there is nothing to dispose.
    @discardableResult
    public override func schedule(after date: Date, _ action: @escaping @Sendable () -> Void) -> (any Disposable)? {
        reportUse("schedule(after:_:) with a Date")
    }

    /// A use: reports `schedule(afterDelay:_:)` as a failure of the running test,
    /// then releases `action` without running it, on the calling thread, before returning.
    ///
    /// - Parameters:
    ///   - delay: Ignored.
    ///   - action: The work, never run.
    /// - Returns: nil: nothing was scheduled, so there is nothing to dispose.
    @discardableResult
    public override func schedule(
        afterDelay delay: TimeInterval, _ action: @escaping @Sendable () -> Void
    ) -> (any Disposable)? {
        reportUse("schedule(afterDelay:_:)")
    }

    /// A use: reports `schedule(after:repeatingEvery:withLeeway:_:)` as a failure of the running test,
    /// then releases `action` without running it, on the calling thread, before returning.
    ///
    /// - Parameters:
    ///   - date: Ignored.
    ///   - interval: Ignored.
    ///   - leeway: Ignored.
    ///   - action: The work, never run.
    /// - Returns: nil: nothing was scheduled, so there is nothing to dispose.
    @discardableResult
    public override func schedule(
        after date: Date, repeatingEvery interval: TimeInterval, withLeeway leeway: TimeInterval = 0,
        _ action: @escaping @Sendable () -> Void
    ) -> (any Disposable)? {
        reportUse("schedule(after:repeatingEvery:withLeeway:_:)")
    }

    /// A use: reports `schedule(after:_:)` with a `Duration` as a failure of the running test,
    /// then releases `action` without running it, on the calling thread, before returning.
    ///
    /// - Parameters:
    ///   - delay: Ignored.
    ///   - action: The work, never run.
    /// - Returns: nil: nothing was scheduled, so there is nothing to dispose.
    @discardableResult
    public override func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> (any Disposable)? {
        reportUse("schedule(after:_:) with a Duration")
    }

    /// A use: reports `schedule(after:repeatingEvery:leeway:_:)` as a failure of the running test,
    /// then releases `action` without running it, on the calling thread, before returning.
    ///
    /// - Parameters:
    ///   - delay: Ignored.
    ///   - interval: Ignored.
    ///   - leeway: Ignored.
    ///   - action: The work, never run.
    /// - Returns: nil: nothing was scheduled, so there is nothing to dispose.
    @discardableResult
    public override func schedule(
        after delay: Duration, repeatingEvery interval: Duration, leeway: Duration = .zero,
        _ action: @escaping @Sendable () -> Void
    ) -> (any Disposable)? {
        reportUse("schedule(after:repeatingEvery:leeway:_:)")
    }

    /// A use: reports `scheduleRecursive(_:)` as a failure of the running test,
    /// then releases `action` without running it, on the calling thread, before returning.
    ///
    /// - Parameter action: The work, never run.
    /// - Returns: nil: nothing was scheduled, so there is nothing to dispose.
    @discardableResult
    public override func scheduleRecursive(
        _ action: @escaping @Sendable (_ reschedule: @escaping @Sendable () -> Void) -> Void
    ) -> (any Disposable)? {
        reportUse("scheduleRecursive(_:)")
    }

    /// Reports that `call` was made, and returns the nil every use returns.
    func reportUse(_ call: String) -> (any Disposable)? {
        let named = unimplementedDescription.isEmpty ? "" : " \"\(unimplementedDescription)\""
        Warning.emit(
            """
            UnimplementedScheduler\(named) was used: \(call) was called and ran nothing; this \
            code path must not schedule, or it needs a scheduler that runs work (a TestScheduler).
            It was made at \(fileID):\(line).
            """, about: self, kind: .failure, fileID: fileID, filePath: fileID, line: line)
        return nil
    }
}
