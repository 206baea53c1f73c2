@_spi(SchedulersInternal) import Disposables

/// An observer registered with XCTest's `XCTestObservationCenter`, without linking XCTest, that
/// tells ``XCTestFailure`` whether a failure it reported landed in a running test case.
///
/// XCTest's `XCTestObservation` is a class-bound protocol whose requirements all take class
/// references and standard library values. ``ObservationRequirements`` declares the same
/// requirements, in the same order and with parameters of the same representation (a class
/// reference is one pointer, whatever its class), so a witness table of it works as a witness
/// table of XCTest's protocol: XCTest reaches each requirement by its position. The registration
/// calls `XCTestObservationCenter.shared.addTestObserver(_:)` through its symbol; an instance
/// method takes `self` where a closure takes its context, so the call is a closure built from the
/// method's address and the center. The order and parameters were read from
/// swift-corelibs-xctest 6.3.1 (`XCTestObservation.swift`); `TestIssueReporterTests` runs an
/// XCTest case and checks that its failure is seen.
final class XCTestFailureObserver: ObservationRequirements, Sendable {
    /// The observer, registered the first time a failure is reported; nil where XCTest is not
    /// loaded (a production process) or does not export what the registration needs, and on
    /// Apple platforms, where `XCTestObservation` is an Objective-C protocol, called through the
    /// Objective-C runtime, which a Swift witness table cannot stand in for.
    static let registered: XCTestFailureObserver? = {
        #if _runtime(_ObjC)
        return nil
        #else
        guard let shared = RuntimeSymbol.address(of: "$s6XCTest0A17ObservationCenterC6sharedACvgZ"),
            let add = RuntimeSymbol.address(of: "$s6XCTest0A17ObservationCenterC15addTestObserveryyAA0aB0_pF")
        else { return nil }
        // `class var shared: XCTestObservationCenter`: returns a global; its metatype is unused.
        let center = unsafeBitCast(shared, to: (@convention(thin) () -> AnyObject).self)()
        let observer = XCTestFailureObserver()
        // Read through a struct field, where a function value has its own type's representation
        // (a bare generic cast would hand it over in the most general one, by address).
        let addTestObserver = unsafeBitCast(MethodClosure(function: add, context: center), to: AddTestObserver.self)
        addTestObserver.call(observer)
        return observer
        #endif
    }()

    /// Failures reported and not yet seen, and those seen, by token.
    private let state = Lock(State())

    private struct State {
        var next = 0
        var expected: [Int: String] = [:]
        var seen: Set<Int> = []
    }

    /// Starts waiting for a failure whose description ends with `message`.
    func expect(_ message: String) -> Int {
        state.withLock { state in
            state.next += 1
            state.expected[state.next] = message
            return state.next
        }
    }

    /// Whether a test case recorded the failure `token` waited for, and stops waiting.
    func landed(_ token: Int) -> Bool {
        state.withLock { state in
            state.expected[token] = nil
            return state.seen.remove(token) != nil
        }
    }

    func testCase(
        _ testCase: AnyObject, didFailWithDescription description: String, inFile filePath: String?,
        atLine lineNumber: Int
    ) {
        state.withLock { state in
            // XCTFail describes its failure as "failed - " followed by the message.
            if let token = state.expected.first(where: { description.hasSuffix($0.value) })?.key {
                state.expected[token] = nil
                state.seen.insert(token)
            }
        }
    }

    func testBundleWillStart(_ testBundle: AnyObject) {}
    func testSuiteWillStart(_ testSuite: AnyObject) {}
    func testCaseWillStart(_ testCase: AnyObject) {}
    func testCaseDidFinish(_ testCase: AnyObject) {}
    func testSuiteDidFinish(_ testSuite: AnyObject) {}
    func testBundleDidFinish(_ testBundle: AnyObject) {}
}

/// XCTest's `XCTestObservation` requirements, in its order; `Bundle`, `XCTestSuite` and
/// `XCTestCase` parameters are class references here.
protocol ObservationRequirements: AnyObject {
    func testBundleWillStart(_ testBundle: AnyObject)
    func testSuiteWillStart(_ testSuite: AnyObject)
    func testCaseWillStart(_ testCase: AnyObject)
    func testCase(
        _ testCase: AnyObject, didFailWithDescription description: String, inFile filePath: String?,
        atLine lineNumber: Int)
    func testCaseDidFinish(_ testCase: AnyObject)
    func testSuiteDidFinish(_ testSuite: AnyObject)
    func testBundleDidFinish(_ testBundle: AnyObject)
}

/// A closure's two words: its function and its context, which the function takes where a method
/// takes `self`.
private struct MethodClosure {
    let function: UnsafeMutableRawPointer
    let context: AnyObject
}

/// `XCTestObservationCenter.addTestObserver(_: any XCTestObservation)` bound to a center.
private struct AddTestObserver {
    let call: (any ObservationRequirements) -> Void
}
