import Foundation
@testable import Schedulers
import Testing
import TestSupport

/// A `done()` that arrives after the wait timed out must not leave anything behind on
/// the waiting thread's run loop, which may never run again.
@Suite(.ownThread, .timeLimit(.minutes(5))) struct RunLoopWaiterLifetimeTests {
    @Test func aSignalAfterTheTimeoutLeavesNothingOnTheWaitingThread() {
        let weak = Locked<Weak<RunLoopWaiter>?>(nil)
        let signal = Locked<(@Sendable () -> Void)?>(nil)
        let timedOut = DispatchSemaphore(value: 0)
        let thread = Thread {
            do {
                let waiter = RunLoopWaiter()
                weak.withLock { $0 = Weak(waiter) }
                signal.withLock { $0 = { waiter.signal() } }
                let signalled = waiter.run(timeout: 0.02)
                precondition(!signalled)
            }
            timedOut.signal()
            // This thread now parks without ever running its run loop again, like a pool thread
            // whose wait has returned.
            Thread.sleep(forTimeInterval: 2)
        }
        thread.start()
        #expect(timedOut.wait(timeout: .now() + 60) == .success)
        do {
            let late = signal.withLock { $0.take() }
            late?()
        }
        #expect(weak.value?.object == nil, "a late signal queued a block that keeps the waiter alive")
    }

    @Test func aSignalBeforeTheTimeoutStillEndsTheWait() {
        let waiter = RunLoopWaiter()
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.01) { waiter.signal() }
        #expect(waiter.run(timeout: 60))
    }
}
