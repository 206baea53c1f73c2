import Foundation

/// ``waitUntil(timeout:_:)`` for async tests: polls on a thread of its own, because blocking a
/// thread of the cooperative pool (two of them on this machine) can starve the very tasks the
/// test waits for. Returns whether `condition` held before the timeout.
func waitUntilOffPool(timeout: TimeInterval = 60, _ condition: @escaping @Sendable () -> Bool) async -> Bool {
    await withCheckedContinuation { continuation in
        Thread.detachNewThread { continuation.resume(returning: waitUntil(timeout: timeout, condition)) }
    }
}
