import Foundation
import Testing
import TestSupport

/// Runs `body(0)`, …, `body(count - 1)` on `count` threads of their own, all at once, and returns
/// when every one has finished.
///
/// Unlike `DispatchQueue.concurrentPerform`, which may run iterations one after another on a
/// single worker (this machine has 2 cores), every body really runs concurrently, so a body may
/// wait for another one to make progress.
func runOnThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    expectMayBlock("runOnThreads")
    let group = DispatchGroup()
    for index in 0..<count {
        group.enter()
        let thread = Thread {
            body(index)
            group.leave()
        }
        thread.stackSize = 1 << 20
        thread.start()
    }
    group.wait()
}
