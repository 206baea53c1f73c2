@_spi(SchedulersInternal) import Disposables
import Foundation
import Testing
import XCTest

/// Lends `Schedulers` the parts an app must never carry (TestSupportLink.swift): where the Swift
/// runtime's hook variables are, and the test frameworks. `Schedulers` calls this once, the first
/// time it needs a part, through the pointer a constructor stored before `main`
/// (Sources/VirtualReadings/TestSupportLink.c); nothing else calls it.
@_cdecl("schedulers_test_support_register")
func registerTestSupport() {
    TestSupportLink.register(
        TestSupportParts(
            enqueueGlobalHook: runtimeVariable("swift_task_enqueueGlobal_hook"),
            getMainExecutorHook: runtimeVariable("swift_task_getMainExecutor_hook"),
            isMainExecutorHook: runtimeVariable("swift_task_isMainExecutor_hook"),
            frameworks: LinkedTestFrameworks()))
}

/// One of the runtime's exported hook variables. Looked up with `dlsym`, since they are not API
/// (swift-concurrency-extras' `withMainSerialExecutor` does the same), through `RuntimeSymbol`,
/// where a test can hide one to see what its absence does.
private func runtimeVariable(_ name: String) -> TestSupportParts.RuntimeVariable {
    TestSupportParts.RuntimeVariable(name: name, address: RuntimeSymbol.address(of: name))
}

/// Swift Testing and XCTest, called directly.
private struct LinkedTestFrameworks: TestFrameworks {
    var isRunningSwiftTest: Bool { Test.current != nil }

    func recordSwiftTestingIssue(
        _ comment: String, isWarning: Bool, fileID: String, filePath: String, line: Int, atTheTest: Bool
    ) {
        let location = atTheTest ? Test.current?.sourceLocation : nil
        Issue.record(
            Comment(rawValue: comment), severity: isWarning ? .warning : .error,
            sourceLocation: location ?? SourceLocation(fileID: fileID, filePath: filePath, line: line, column: 1))
    }

    func recordXCTestFailure(_ message: String, file: StaticString, line: UInt) -> Bool? {
        #if _runtime(_ObjC)
        XCTFail(message, file: file, line: line)
        return nil
        #else
        let observer = XCTestFailureObserver.registered
        let token = observer.expect(message)
        XCTFail(message, file: file, line: line)
        return observer.landed(token)
        #endif
    }
}
