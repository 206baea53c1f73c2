import Foundation
@_spi(SchedulersInternal) import Disposables
@testable import Schedulers
import Testing
import TestSupport
import XCTest

/// A warning is a test failure the test can see: reported as an issue of the running Swift
/// Testing test, or as a failure of the running XCTest test case, through the frameworks the
/// test support lends; help
/// is a warning-severity issue that fails nothing; with neither, a line on standard error.
@Suite(.ownThread, .timeLimit(.minutes(5))) struct TestIssueReporterTests {
    /// A normal TestScheduler warning: a synchronous drive off the main actor meets a captured
    /// main-actor job (a failure: the job runs outside virtual time).
    static func driveAMainActorJobOffTheMainActor() {
        let scheduler = TestScheduler()
        scheduler.withCapturedTasks {
            Task { @MainActor in }
            scheduler.advance(by: 0)
        }
    }

    static let offMainWarning = "Schedulers warning: a main-actor job of a task started inside withCapturedTasks"

    // MARK: Swift Testing

    /// The package's test binary links SchedulersTestSupport, which lends the frameworks
    /// (TestSupportLink.swift); an app's binary has no parts to lend (the client-package check
    /// in `.ci/run`).
    @Test func theTestSupportLendsTheFrameworks() {
        #expect(TestSupportLink.parts?.frameworks.isRunningSwiftTest == true)
    }

    /// And it points at the test (its declaration), not at the file of the package that
    /// noticed it.
    @Test func aTestSchedulerWarningIsAnIssueOfTheRunningSwiftTestingTest() {
        let test = Test.current?.sourceLocation
        #expect(test?.fileID == #fileID)
        withKnownIssue {
            Self.driveAMainActorJobOffTheMainActor()
        } matching: { issue in
            issue.severity == .error
                && issue.comments.first?.rawValue.hasPrefix(Self.offMainWarning) == true
                && issue.sourceLocation == test
        }
    }

    /// A task the test starts carries the test with it (a task-local value), so a warning given
    /// on the pool from that task is the test's too.
    @Test func aWarningFromATaskTheTestStartedIsTheTestsIssue() async {
        await withKnownIssue {
            await Task { Warning.emit("from a task the test started.") }.value
        } matching: { issue in
            issue.comments.first?.rawValue == "Schedulers warning: from a task the test started."
        }
    }

    @Test func helpIsAWarningThatFailsNothing() {
        withKnownIssue {
            let destination = TestIssueReporter.report(
                "Schedulers warning: help.", kind: .help, fileID: #fileID, filePath: #filePath, line: #line)
            #expect(destination == .swiftTesting)
        } matching: { issue in
            issue.severity == .warning && issue.comments.first?.rawValue == "Schedulers warning: help."
        }
    }

    @Test func aCapturedWarningIsNeitherReportedNorPrinted() {
        let scheduler = TestScheduler()
        let (_, warnings) = scheduler.withExpectedWarnings {
            scheduler.withCapturedTasks {
                Task { @MainActor in }
                scheduler.advance(by: 0)
            }
        }
        // Reported, the warning would have failed this test.
        #expect(warnings.count == 1)
        #expect(warnings.first?.hasPrefix(Self.offMainWarning) == true)
    }

    // MARK: XCTest

    /// An XCTest case run by XCTest's own machinery on a thread no Swift Testing test owns: the
    /// warning is a failure of that case.
    @Test func aTestSchedulerWarningIsAFailureOfTheRunningXCTestCase() async {
        let run = await ReportingTestCase.run { Self.driveAMainActorJobOffTheMainActor() }
        #expect(run.failureCount == 1)
        #expect(run.failures.count == 1)
        #expect(run.failures.first?.contains(Self.offMainWarning) == true)
    }

    /// XCTest has no warnings: help is a line on standard error there, and fails nothing (in a
    /// child process, so that the line is not in this run's output).
    @Test func helpIsNoFailureOfAnXCTestCaseButALineOnStandardError() async throws {
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            let run = await ReportingTestCase.run {
                Warning.emit("help in XCTest.", kind: .help)
            }
            precondition(run.failureCount == 0, "help failed the XCTest case: \(run.failures)")
        }
        let stderr = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
        #expect(stderr.contains("Schedulers warning: help in XCTest.\n"))
    }

    /// A whole XCTest run, as `swift test` makes one (`XCTMain`), in a child process: the
    /// warning fails its test case, XCTest prints the failure, and the run exits non-zero.
    @Test func aTestSchedulerWarningFailsARealXCTestRun() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardOutputContent]) {
            // A thread of its own: no Swift Testing test is current there.
            Thread.detachNewThread {
                XCTMain([testCase([("warns", WarningXCTestCase.warns)])], arguments: ["xctest"])
            }
            await withUnsafeContinuation { (_: UnsafeContinuation<Void, Never>) in }
        }
        let output = String(decoding: result?.standardOutputContent ?? [], as: UTF8.self)
        #expect(output.contains("WarningXCTestCase.warns"))
        #expect(output.contains("failed - \(Self.offMainWarning)"))
        #expect(output.contains("with 1 failure"))
    }

    // MARK: Neither

    /// Where no test runs (a thread of its own, no XCTest case running), the report is a line on
    /// standard error.
    @Test func withNoTestRunningAReportIsALineOnStandardError() async throws {
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                Thread.detachNewThread {
                    precondition(TestSupportLink.parts?.frameworks.isRunningSwiftTest == false)
                    let destination = TestIssueReporter.report(
                        "Schedulers warning: nobody's.", kind: .failure, fileID: #fileID, filePath: #filePath,
                        line: #line)
                    precondition(destination == .standardError)
                    done.resume()
                }
            }
        }
        let stderr = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
        #expect(stderr.contains("Schedulers warning: nobody's.\n"))
    }
}

/// Discovered by XCTest's run of this bundle only through `XCTMain` in the child process above:
/// its method is not named `test…`.
final class WarningXCTestCase: XCTestCase {
    func warns() {
        TestIssueReporterTests.driveAMainActorJobOffTheMainActor()
    }
}
