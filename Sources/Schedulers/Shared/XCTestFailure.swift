@_spi(SchedulersInternal) import Disposables

/// Records a failure of the running XCTest test case, found at run time: the Schedulers library
/// never links XCTest, so it calls `XCTFail(_:file:line:)` through the address of its exported
/// symbol (checked with `nm -D` on the toolchain's `libXCTest.so`, Swift 6.3.1), as pointfree's
/// swift-issue-reporting does. Its parameters are a `String`, a `StaticString` and a `UInt`,
/// standard library types of fixed layout, so a `@convention(thin)` function type matches it.
///
/// `XCTFail` says nothing when no test case runs (swift-corelibs-xctest drops the failure), and
/// the library must not then fall silent. So it learns whether the failure landed from XCTest
/// itself: ``XCTestFailureObserver`` is told of every failure a test case records, synchronously,
/// inside the `XCTFail` call; a failure nobody was told of did not land, and the caller prints it.
enum XCTestFailure {
    /// Calls `XCTFail(message, file: file, line: line)` and returns whether a running XCTest test
    /// case recorded it: false when it did not or XCTest is not loaded, nil when XCTest cannot
    /// tell (no observer, on Apple platforms), so that the caller prints the message too.
    static func record(_ message: String, file: StaticString, line: UInt) -> Bool? {
        guard let fail = Symbols.fail else { return false }
        let call = unsafeBitCast(fail, to: (@convention(thin) (String, StaticString, UInt) -> Void).self)
        guard let observer = XCTestFailureObserver.registered else {
            call(message, file, line)
            return nil
        }
        let token = observer.expect(message)
        call(message, file, line)
        return observer.landed(token)
    }

    private enum Symbols {
        /// `XCTFail(_ message: String, file: StaticString, line: UInt)`. `nonisolated(unsafe)`: an
        /// address, written once.
        nonisolated(unsafe) static let fail = RuntimeSymbol.address(of: "$s6XCTest7XCTFail_4file4lineySS_s12StaticStringVSutF")
    }
}
