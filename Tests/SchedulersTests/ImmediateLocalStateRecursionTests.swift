import Foundation
import Schedulers
import Testing
import TestSupport

/// `ImmediateScheduler.scheduleRecursive` with a block that is not `Sendable`: RAC code's
/// `again` loop over a local variable compiles where the static type is `ImmediateScheduler`,
/// and behaves like the `@Sendable` form (a loop, reschedules run after the block returns).
@Suite(.ownThread, .timeLimit(.minutes(5))) struct ImmediateLocalStateRecursionTests {
    /// The shape from ReactiveCocoa: a local `var`, changed inside the block.
    @Test func aBlockMayChangeALocalVariable() {
        let immediate = ImmediateScheduler()
        var n = 0
        let disposable = immediate.scheduleRecursive { again in
            n += 1
            if n < 3 { again() }
        }
        #expect(n == 3)
        #expect(disposable == nil)   // finished: nothing left to dispose
    }

    /// `Scheduler.immediate` is typed `Scheduler`; cast, the shared instance takes the block too.
    @Test func theSharedInstanceTakesItAsAnImmediateScheduler() throws {
        let immediate = try #require(Scheduler.immediate as? ImmediateScheduler)
        var runs: [Int] = []
        immediate.scheduleRecursive { again in
            runs.append(runs.count)
            if runs.count < 4 { again() }
        }
        #expect(runs == [0, 1, 2, 3])
    }

    /// A reschedule asked for while the block runs happens after it returns, never inside it.
    @Test func reschedulesRunAfterTheBlockReturns() {
        var depth = 0, deepest = 0, runs = 0
        ImmediateScheduler().scheduleRecursive { again in
            depth += 1
            deepest = max(deepest, depth)
            runs += 1
            if runs < 5 {
                again()
                again()   // twice: both run, one after the other
            }
            depth -= 1
        }
        #expect(deepest == 1)
        #expect(runs == 9)   // runs 1 to 4 each ask twice: 1 + 2 * 4
    }

    /// A million self-reschedules with the stack flat: the loop unrolls them.
    @Test func unrollsAMillionSelfReschedules() {
        let iterations = stressCount(1_000_000)
        let probe = StackProbe()
        var count = 0
        ImmediateScheduler().scheduleRecursive { again in
            probe.record()
            count += 1
            if count < iterations { again() }
        }
        #expect(count == iterations)
        #expect(probe.spread < StackProbe.allowedSpread)
    }

    /// `again` kept and called after the loop has ended, on the same thread, runs the block again
    /// at once.
    @Test func againCalledAfterTheLoopRunsAtOnce() {
        var count = 0
        var saved: (() -> Void)?
        ImmediateScheduler().scheduleRecursive { again in
            count += 1
            saved = again
        }
        #expect(count == 1)
        saved?()
        #expect(count == 2)
    }

    /// Through a `Scheduler` reference, and with a `@Sendable` function value, the `@Sendable`
    /// form still runs, with a `reschedule` that may be handed to another thread.
    @Test func theSendableFormStillRunsAndItsRescheduleCrossesThreads() {
        let background = TargetQueueScheduler(name: "immediate.sendable")
        let count = Locked(0)
        let action: @Sendable (_ again: @escaping @Sendable () -> Void) -> Void = { again in
            if count.withLock({ $0 += 1; return $0 }) < 3 {
                background.schedule { again() }
            }
        }
        ImmediateScheduler().scheduleRecursive(action)
        #expect(waitUntil { count.value == 3 })
        let viaScheduler: Scheduler = ImmediateScheduler()
        viaScheduler.scheduleRecursive { again in
            if count.withLock({ $0 += 1; return $0 }) < 6 {
                background.schedule { again() }
            }
        }
        #expect(waitUntil { count.value == 6 })
    }
}
