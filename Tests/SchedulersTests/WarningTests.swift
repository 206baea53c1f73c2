import Foundation
@testable import Schedulers
import Testing
import TestSupport

/// `Warning`, the one place the package warns through: an uncaptured warning that no test
/// framework can attribute is a "Schedulers warning: " line on stderr (the reports in a test are
/// `TestIssueReporterTests`'); a capture collects the warnings about its subject from
/// any thread, and those of its own task tree, and nothing else.
@Suite(.ownThread, .timeLimit(.minutes(5))) struct WarningTests {
    @Test func anUncapturedWarningNoTestOwnsIsOneLineOnStandardError() async throws {
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            // A thread of its own: no test is current there.
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                Thread.detachNewThread {
                    Warning.emit("something to know.")
                    done.resume()
                }
            }
        }
        let stderr = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
        #expect(stderr.contains("Schedulers warning: something to know.\n"))
    }

    @Test func aCaptureCollectsTheWarningsOfItsTaskInsteadOfPrintingThem() async {
        let (_, warnings) = await Warning.capture {
            Warning.emit("first.")
            await Task { Warning.emit("from a task it started.") }.value
        }
        #expect(warnings == ["Schedulers warning: first.", "Schedulers warning: from a task it started."])
    }

    @Test func aCaptureAboutASubjectCollectsItsWarningsFromAnyThread() async {
        let subject = TestScheduler()
        let (_, warnings) = await Warning.capture(about: subject) {
            // A thread of its own: no task, so only the subject can route the warning here.
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                Thread.detachNewThread {
                    Warning.emit("about the subject.", about: subject)
                    done.resume()
                }
            }
        }
        #expect(warnings == ["Schedulers warning: about the subject."])
    }

    @Test func eachWarningGoesToTheCaptureOfItsSubject() {
        let first = TestScheduler()
        let second = TestScheduler()
        let (inner, outer) = Warning.capture(about: first) {
            Warning.capture(about: second) {
                Warning.emit("about the first.", about: first)
                Warning.emit("about the second.", about: second)
                Warning.emit("about nothing.")
            }.warnings
        }
        #expect(outer == ["Schedulers warning: about the first."])
        #expect(inner == ["Schedulers warning: about the second.", "Schedulers warning: about nothing."])
    }

    @Test func aClosedCaptureCollectsNothingMore() {
        let subject = TestScheduler()
        let (_, warnings) = Warning.capture(about: subject) { Warning.emit("inside.", about: subject) }
        let (_, later) = Warning.capture { Warning.emit("after.", about: subject) }
        #expect(warnings == ["Schedulers warning: inside."])
        #expect(later == ["Schedulers warning: after."])
    }
}
