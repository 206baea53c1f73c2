@_spi(SchedulersInternal) import Disposables

/// The one place through which the package warns: every warning is reported as an issue of the
/// running test where the test framework can attribute it (``TestIssueReporter``), and is printed
/// to stderr otherwise; its first line starts with ``prefix``, unless a test captures it.
///
/// A warning tells a user about a mistake that still lets the program run (see
/// `DetachedSleepWarning`), or helps them understand a correct test (``Kind``). The package's own
/// tests trigger some on purpose; they capture them with ``capture(about:_:)`` and assert the
/// message: a captured warning is neither reported nor printed, so a passing `swift test` shows
/// no warning at all (CI fails on a "Schedulers warning" line in the test log). Users capture
/// them with `TestScheduler.withExpectedWarnings(_:)`.
///
/// Capturing is safe while tests run in parallel, because nothing global is redirected:
/// - a warning about a subject (a scheduler) goes to the innermost capture registered for that
///   object, whatever thread or task emits it;
/// - any other warning goes to the capture of the task that emits it (a task-local value, so
///   also `Task {}` and child tasks started inside the capture; not `Task.detached`).
/// Everything else is reported.
package enum Warning {
    /// The start of every warning line.
    package static let prefix = "Schedulers warning: "

    /// What a warning is to the test that causes it: see ``TestIssueReporter/Kind``.
    package typealias Kind = TestIssueReporter.Kind

    /// Reports `prefix + text` as an issue of the running test (``TestIssueReporter``), or hands
    /// that message to the capture that claims it.
    ///
    /// Called only when a warning is due (rarely): it takes a lock and allocates.
    ///
    /// - Parameters:
    ///   - text: The warning without the prefix: a first line that says what happened and the
    ///     fix, in one sentence; detail, if any, on the lines after it.
    ///   - subject: The object the warning is about, if any (a scheduler): a test capturing
    ///     warnings about that object receives the warning from any thread.
    ///   - kind: A failure of the test (the default), or help that must not fail it.
    ///   - fileID: The file the report is attributed to.
    ///   - filePath: The same file's path.
    ///   - line: The line the report is attributed to.
    package static func emit(
        _ text: String, about subject: AnyObject? = nil, kind: Kind = .failure,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line
    ) {
        let message = prefix + text
        if let capture = capture(for: subject) {
            capture.append(message)
        } else {
            TestIssueReporter.report(message, kind: kind, fileID: fileID, filePath: filePath, line: line)
        }
    }

    /// Runs `body`, collecting instead of reporting the warnings about `subject` (from any thread)
    /// and the warnings emitted by this task or the tasks it starts.
    ///
    /// - Parameters:
    ///   - subject: The object whose warnings to collect, if any.
    ///   - body: The code that triggers the warnings, run at once on the calling thread.
    /// - Returns: `body`'s result, and each warning collected, with its prefix, in order.
    package static func capture<Result>(
        about subject: AnyObject? = nil, _ body: () throws -> Result
    ) rethrows -> (result: Result, warnings: [String]) {
        let capture = WarningCapture()
        let registration = register(capture, for: subject)
        defer { unregister(registration) }
        let result = try withExtendedLifetime(subject) { try $current.withValue(capture, operation: body) }
        return (result, capture.messages)
    }

    /// The `async` form of ``capture(about:_:)``.
    package static func capture<Result>(
        about subject: AnyObject? = nil,
        isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws -> Result
    ) async rethrows -> (result: Result, warnings: [String]) {
        let capture = WarningCapture()
        let registration = register(capture, for: subject)
        defer { unregister(registration) }
        let result = try await $current.withValue(capture, operation: body, isolation: isolation)
        withExtendedLifetime(subject) {}
        return (result, capture.messages)
    }

    /// How many warnings the innermost capture registered for `subject` holds so far, from any
    /// thread: for a test that waits for a warning before it unblocks what it tests.
    package static func capturedCount(about subject: AnyObject) -> Int {
        let id = ObjectIdentifier(subject)
        return bySubject.withLock { $0.last { $0.subject == id }?.capture }?.messages.count ?? 0
    }

    // MARK: Captures

    /// The capture of the running task, if it is inside ``capture(about:_:)``.
    @TaskLocal private static var current: WarningCapture?

    /// Captures registered for a subject, innermost last. Held only while a capture is open.
    private static let bySubject = Lock([SubjectCapture]())

    private static func capture(for subject: AnyObject?) -> WarningCapture? {
        if let subject {
            let id = ObjectIdentifier(subject)
            if let capture = bySubject.withLock({ $0.last { $0.subject == id }?.capture }) {
                return capture
            }
        }
        return current
    }

    private static func register(_ capture: WarningCapture, for subject: AnyObject?) -> SubjectCapture? {
        guard let subject else { return nil }
        let registration = SubjectCapture(subject: ObjectIdentifier(subject), capture: capture)
        bySubject.withLock { $0.append(registration) }
        return registration
    }

    private static func unregister(_ registration: SubjectCapture?) {
        guard let registration else { return }
        bySubject.withLock { entries in entries.removeAll { $0.capture === registration.capture } }
    }
}

/// The warnings one ``Warning/capture(about:_:)`` has collected.
private final class WarningCapture: Sendable {
    private let state = Lock([String]())

    var messages: [String] { state.withLock { $0 } }

    func append(_ message: String) {
        state.withLock { $0.append(message) }
    }
}

/// A capture registered for an object. The object is alive while registered: the capture's
/// caller holds it (see `withExtendedLifetime` in ``Warning/capture(about:_:)``), so its
/// identifier cannot be reused by another object meanwhile.
private struct SubjectCapture: Sendable {
    let subject: ObjectIdentifier
    let capture: WarningCapture
}
