import Foundation

/// Where a report goes: an issue of the running test, in whichever test framework runs it, or a
/// line on standard error where no framework can attribute it.
///
/// The frameworks are the test support's (``TestSupportLink``): the Schedulers library links
/// neither and names neither, so an app that ships it reports on standard error.
///
/// - Swift Testing: when the reporting task runs a test (`Test.current`), an `Issue` of that
///   test: an error for a failure, a warning-severity issue for help (it does not fail the
///   test). A test that expects the report wraps the code in `withKnownIssue`.
/// - XCTest: otherwise, a failure of the running test case (`XCTFail`), if one recorded it. XCTest
///   has no warnings, so help is not sent there. Where XCTest cannot say whether a test case
///   recorded it (Apple platforms), the report is printed too.
/// - Otherwise (no test runs, or the report comes from a thread no test owns): standard error.
package enum TestIssueReporter {
    /// What a report is to the test that causes it.
    package enum Kind: Sendable {
        /// The test is inexact or misuses the package: the report fails it.
        case failure
        /// It helps a correct test (why it waits, why a drive stopped): never fails it.
        case help
    }

    /// Where a report went.
    package enum Destination: Equatable, Sendable {
        case swiftTesting
        case xcTest
        case standardError
    }

    /// Reports `message` (its first line begins with "Schedulers") as `kind`, attributed to
    /// `fileID` and `line`.
    @discardableResult
    package static func report(
        _ message: String, kind: Kind, fileID: StaticString, filePath: StaticString, line: UInt
    ) -> Destination {
        // Noticed by a file of the package: the report is about the test's world, so it points
        // at the test (an UnimplementedScheduler's reports keep the line that made it).
        let fileIDText = "\(fileID)"
        if let frameworks = TestSupportLink.parts?.frameworks {
            if frameworks.isRunningSwiftTest {
                frameworks.recordSwiftTestingIssue(
                    message, isWarning: kind == .help,
                    fileID: fileIDText.contains("/") ? fileIDText : "Schedulers/" + fileIDText, filePath: "\(filePath)",
                    line: max(Int(line), 1),
                    atTheTest: fileIDText.hasPrefix("Schedulers/") || fileIDText.hasPrefix("SchedulersTestSupport/"))
                return .swiftTesting
            }
            if kind == .failure, frameworks.recordXCTestFailure(message, file: filePath, line: line) == true {
                return .xcTest
            }
        }
        FileHandle.standardError.write(Data((message + "\n").utf8))
        return .standardError
    }
}
