@_spi(SchedulersInternal) import Disposables
import Foundation
import XCTest

/// An XCTest case run by XCTest's own machinery (`XCTestCase.run()`: its `XCTestCaseRun`, the
/// current test case XCTest records failures into, its observers), from a Swift Testing test.
///
/// It runs on a thread of its own, where no Swift Testing test is current (a task-local value),
/// so that a report made inside it can only go to XCTest, as in an XCTest run. Its body is no
/// `test…` method, so XCTest's own run of this bundle does not discover it.
final class ReportingTestCase: XCTestCase, @unchecked Sendable {
    // `@unchecked`: `failures` is written by XCTest on the case's own thread, and read after it
    // has finished.
    private(set) var failures: [String] = []

    override func recordFailure(withDescription description: String, inFile filePath: String, atLine lineNumber: Int, expected: Bool) {
        failures.append(description)
        super.recordFailure(withDescription: description, inFile: filePath, atLine: lineNumber, expected: expected)
    }

    /// One case at a time: XCTest records a failure into the one current test case of the
    /// process, which a case running in parallel would replace.
    private static let oneAtATime = Lock(())

    /// Runs `body` as the test of a new case, on a thread of its own, and returns what XCTest
    /// counted: its run's failure count and each failure's description.
    static func run(_ body: @escaping @Sendable () -> Void) async -> (failureCount: Int, failures: [String]) {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                let counted = oneAtATime.withLock { _ in
                    let testCase = ReportingTestCase(name: "ReportingTestCase.body", testClosure: { _ in body() })
                    testCase.run()
                    return (testCase.testRun?.failureCount ?? -1, testCase.failures)
                }
                continuation.resume(returning: counted)
            }
        }
    }
}
