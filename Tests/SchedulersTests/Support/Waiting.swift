import Foundation
import Disposables
import Synchronization
@_spi(SchedulersInternal) import Disposables
import Schedulers
import Testing
import TestSupport

/// A thread-safe value for tests to share between the test body and scheduled actions.
final class Locked<Value: Sendable>: Sendable {
    private let mutex: Lock<Value>

    init(_ value: Value) {
        mutex = Lock(value)
    }

    var value: Value {
        mutex.withLock { $0 }
    }

    @discardableResult
    func withLock<Result: Sendable>(_ body: (inout Value) -> Result) -> Result {
        mutex.withLock { body(&$0) }
    }
}

/// Polls `condition` until it holds or `timeout` passes, spinning the current run loop in
/// between, so main-queue work keeps draining when called on the main thread (on Linux the main
/// queue drains only while the main thread runs its run loop). Returns whether it held.
/// The timeout bounds a failure, it is not a timing assertion: it is generous because on this
/// 2-core machine heavy tests running in parallel can delay the work for many seconds.
@discardableResult
func waitUntil(
    timeout: TimeInterval = 60, fileID: String = #fileID, filePath: String = #filePath, line: Int = #line,
    _ condition: () -> Bool
) -> Bool {
    expectMayBlock("waitUntil", sourceLocation: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: 1))
    let deadline = Date(timeIntervalSinceNow: timeout)
    while !condition() {
        if Date() > deadline { return false }
        if Thread.isMainThread {
            _ = RunLoop.current.run(mode: .default, before: Date(timeIntervalSinceNow: 0.001))
        } else {
            Thread.sleep(forTimeInterval: 0.001)
        }
    }
    return true
}
