import Foundation
import Testing

/// Runs each test it applies to in a virtual world of its own: `@Test(.virtualTime)`.
///
/// ```swift
/// @Test(.virtualTime) @MainActor func debounces() async throws {
///     let model = SearchModel(backend: { ["\($0)!"] })   // no clock injected
///     model.queryChanged("s")                           // starts a Task { sleep 300 ms; … }
///     try await Task.sleep(for: .milliseconds(300))     // virtual: returns at once
///     #expect(model.results == ["s!"])
/// }
/// ```
///
/// - **What it does.** Each test (each case of a parameterized test) runs inside
///   `await TestScheduler(startDate: startDate).withCapturedTasks(advancing: advancing) { … }`
///   with a new scheduler: the test's own code runs as the capture's body, and every task it
///   starts, and theirs, runs in that scheduler's virtual time, on the caller's actor or on the
///   thread that drives the scheduler. Their sleeps on a real clock (`Task.sleep(for:)`,
///   `ContinuousClock`, `SuspendingClock`) sleep in virtual time (Linux, Swift 6.3 and later).
///   With the default ``TestScheduler/Advancing/automatically`` time jumps to the next pending
///   due time whenever the test waits and nothing can run at the current time, so the test
///   reads like production code; with ``TestScheduler/Advancing/manually`` it moves only when
///   the test drives it (``TestScheduler/capturing`` gives the test its scheduler).
/// - **Where it applies.** On a test, to that test; on a suite, to every test in it and in its
///   nested suites (the trait is recursive), each with its own scheduler.
/// - **When the test ends**, work still pending stays on the test's scheduler, which is then
///   released: pending actions are released without running (TestScheduler's "Lifetime").
///
/// What the capture captures, and what it cannot, is ``TestScheduler/withCapturedTasks(_:)``'s
/// doc comment.
public struct VirtualTimeTrait: TestTrait, SuiteTrait, TestScoping {
    private let advancing: TestScheduler.Advancing
    private let startDate: Date

    fileprivate init(advancing: TestScheduler.Advancing, startDate: Date) {
        self.advancing = advancing
        self.startDate = startDate
    }

    /// On a suite, every test in it (and in nested suites) gets its own scheduler.
    public var isRecursive: Bool { true }

    /// A scope for each test case (the body), none for a suite or a test function as a whole:
    /// each case gets a scheduler of its own.
    public func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
        testCase == nil ? nil : self
    }

    /// Runs `function` (the test case) inside a capture of a new ``TestScheduler``.
    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        let scheduler = TestScheduler(startDate: startDate)
        try await scheduler.withCapturedTasks(advancing: advancing) {
            try await function()
        }
    }
}

extension Trait where Self == VirtualTimeTrait {
    /// `.virtualTime(advancing: .automatically, startDate: Date(timeIntervalSinceReferenceDate: 0))`.
    public static var virtualTime: Self {
        virtualTime()
    }

    /// Runs each test it applies to inside
    /// `await TestScheduler(startDate: startDate).withCapturedTasks(advancing: advancing) { … }`,
    /// a new scheduler for every test (and every case of a parameterized test).
    ///
    /// - Parameters:
    ///   - advancing: How virtual time moves while the test waits: by itself (the default), or
    ///     only when the test drives ``TestScheduler/capturing``.
    ///   - startDate: The test scheduler's first ``TestScheduler/now``.
    public static func virtualTime(
        advancing: TestScheduler.Advancing = .automatically,
        startDate: Date = Date(timeIntervalSinceReferenceDate: 0)
    ) -> Self {
        VirtualTimeTrait(advancing: advancing, startDate: startDate)
    }
}
