@_spi(SchedulersInternal) import Disposables
import CurrentSchedulerSlot

/// What the `SchedulersTestSupport` product lends this module in a binary that links it: where
/// the Swift runtime's hook variables are, and the test frameworks. An app links only
/// `Schedulers`, so it names none of them: no hook variable, no symbol of Swift Testing or XCTest
/// is in its binary (the client-package check in `.ci/run` looks), and nothing here can install a
/// hook or call a test framework there. What needs a part does without it:
/// `withCapturedTasks` stops with a message that names the product, a task that sleeps on a
/// ``TestScheduler`` is woken the way any task is (it does not join the world), and a report is
/// a line on standard error.
///
/// How the parts arrive: a constructor of the test support stores its registration function
/// before `main` (TestSupportLinkSlot.h); the first read of ``parts`` calls it, once, and the
/// registration hands its parts to ``register(_:)``.
package enum TestSupportLink {
    /// The test support's parts, or nil in a binary that does not link it.
    package static var parts: TestSupportParts? { asked.parts }

    /// Called by the test support's registration only.
    package static func register(_ parts: TestSupportParts) {
        registered.withLock { $0 = parts }
    }

    private static let registered = Lock<TestSupportParts?>(nil)

    /// The test support's registration function (Sources/VirtualReadings/TestSupportLink.c).
    package static let registrationName = "schedulers_test_support_register"

    /// Asks once. A struct around the value, because a global's lazy initialiser is the one
    /// "once" Swift offers, and it needs a type that is `Sendable` as a whole.
    private static let asked = Asked()

    private struct Asked: Sendable {
        let parts: TestSupportParts?
        init() {
            #if DEBUG
            // A test sees an app's binary by hiding the link, as it hides a runtime symbol.
            if RuntimeSymbol.isHidden(TestSupportLink.registrationName) {
                parts = nil
                return
            }
            #endif
            if let link = schedulers_test_support_link_get() { link() }
            parts = TestSupportLink.registered.withLock { $0 }
        }
    }
}

/// The parts themselves (``TestSupportLink``).
package struct TestSupportParts: Sendable {
    /// One of the Swift runtime's exported hook variables.
    package struct RuntimeVariable: Sendable {
        /// Its name, for messages.
        package let name: String
        /// Its address's bits, 0 where this runtime does not export it.
        private let bits: UInt

        package init(name: String, address: UnsafeMutableRawPointer?) {
            self.name = name
            bits = UInt(bitPattern: address)
        }

        /// Its address, nil where this runtime does not export it.
        package var address: UnsafeMutableRawPointer? { UnsafeMutableRawPointer(bitPattern: bits) }
    }

    /// `swift_task_enqueueGlobal_hook` (GlobalEnqueueHook.swift).
    package let enqueueGlobalHook: RuntimeVariable
    /// `swift_task_getMainExecutor_hook` (MainExecutorHook.swift).
    package let getMainExecutorHook: RuntimeVariable
    /// `swift_task_isMainExecutor_hook` (MainExecutorCheckHook.swift).
    package let isMainExecutorHook: RuntimeVariable
    /// The test frameworks (TestIssueReporter.swift).
    package let frameworks: any TestFrameworks

    package init(
        enqueueGlobalHook: RuntimeVariable, getMainExecutorHook: RuntimeVariable, isMainExecutorHook: RuntimeVariable,
        frameworks: any TestFrameworks
    ) {
        self.enqueueGlobalHook = enqueueGlobalHook
        self.getMainExecutorHook = getMainExecutorHook
        self.isMainExecutorHook = isMainExecutorHook
        self.frameworks = frameworks
    }
}

/// Swift Testing and XCTest, called by the test support, which links them.
package protocol TestFrameworks: Sendable {
    /// Whether the calling task runs a Swift Testing test (`Test.current` is not nil): an issue
    /// recorded elsewhere would belong to no test.
    var isRunningSwiftTest: Bool { get }

    /// Records an issue with `comment` in the running Swift Testing test, failing it unless
    /// `isWarning`. Call only where ``isRunningSwiftTest`` is true.
    ///
    /// - Parameter atTheTest: attribute the issue to the running test's own declaration instead
    ///   of the given location, which is then a file of the package: a report about the test's
    ///   world points at the test, not at the line of the package that noticed it.
    func recordSwiftTestingIssue(
        _ comment: String, isWarning: Bool, fileID: String, filePath: String, line: Int, atTheTest: Bool)

    /// Records a failure of the running XCTest test case (`XCTFail`) and returns whether one
    /// recorded it: false when none runs, nil when XCTest cannot tell (Apple platforms), so that
    /// the caller prints the message too.
    func recordXCTestFailure(_ message: String, file: StaticString, line: UInt) -> Bool?
}
