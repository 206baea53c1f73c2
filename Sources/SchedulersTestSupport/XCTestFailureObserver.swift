@_spi(SchedulersInternal) import Disposables
import XCTest

#if !_runtime(_ObjC)
/// Tells the test support whether a failure it reported with `XCTFail` landed in a running test
/// case. `XCTFail` says nothing when no test case runs (swift-corelibs-xctest drops the failure),
/// and a report must not then fall silent: XCTest tells its observers of every failure a test
/// case records, synchronously, inside the `XCTFail` call, so a failure nobody was told of did
/// not land, and the reporter prints it instead.
///
/// Linux only: on Apple platforms `XCTestObservation` is an Objective-C protocol, and no observer
/// is registered there; the reporter prints every failure it gives XCTest too.
final class XCTestFailureObserver: XCTestObservation, Sendable {
    /// The observer, registered the first time a failure is reported.
    static let registered: XCTestFailureObserver = {
        let observer = XCTestFailureObserver()
        XCTestObservationCenter.shared.addTestObserver(observer)
        return observer
    }()

    /// Failures reported and not yet seen, and those seen, by token.
    private let state = Lock(State())

    private struct State: Sendable {
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
        _ testCase: XCTestCase, didFailWithDescription description: String, inFile filePath: String?,
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
}
#endif
