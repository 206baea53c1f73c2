import Foundation
@testable import Schedulers
import Testing
import TestSupport

/// What a scheduler that captured main-actor work leaves behind (MainActorStandIn.swift,
/// "Lifetime"; Performance.md, "Resident memory per capture"): its stand-in, in a 32-byte slot
/// packed beside the other stand-ins, never freed, holding the scheduler neither strongly nor
/// through a weak reference.
@Suite(.ownThread, .timeLimit(.minutes(5))) struct MainActorStandInMemoryTests {
    /// Stand-ins made one after another sit in consecutive 32-byte slots. Made on the heap, each
    /// sat wherever the allocator found 32 bytes, amid the memory its test freed, and the heap
    /// grew by ~380 bytes a capture around them (Performance.md).
    @Test func standInsArePackedInThirtyTwoByteSlots() {
        var addresses: [UInt] = []
        var schedulers: [TestScheduler] = []
        for _ in 0..<20 {
            let scheduler = TestScheduler()
            schedulers.append(scheduler)
            addresses.append(UInt(bitPattern: Unmanaged.passUnretained(scheduler.mainActorStandIn).toOpaque()))
        }
        let steps = zip(addresses, addresses.dropFirst()).map { Int(bitPattern: $1 &- $0) }
        // A step may cross into a new block, or over a slot that a test running at the same
        // time took: a few steps may differ, most must be exactly one slot.
        #expect(steps.filter { $0 == 32 }.count >= steps.count - 3, "stand-ins not packed in 32-byte slots: steps \(steps)")
    }

    /// A stand-in does not keep its scheduler: the scheduler is freed while its stand-in lives
    /// on, and the stand-in then answers no scheduler.
    @Test func aStandInKeepsNoSchedulerAlive() {
        var scheduler: TestScheduler? = TestScheduler()
        let standIn = scheduler!.mainActorStandIn
        let weakScheduler = Weak(scheduler!)
        #expect(standIn.currentScheduler === scheduler)
        scheduler = nil
        #expect(weakScheduler.object == nil, "the stand-in kept its scheduler alive")
        #expect(!standIn.isAttached, "the scheduler's deinit left its address in the stand-in")
        #expect(standIn.currentScheduler == nil, "the stand-in still answers a freed scheduler")
    }

    /// A main-actor task resumed from a Dispatch callback while its scheduler is being freed,
    /// 300 times: whether the job reaches the stand-in before, during or after the scheduler's
    /// deinit, it never runs, and nothing touches freed memory (this suite runs under
    /// AddressSanitizer too). In a process of its own, so that a crash fails this test only.
    @Test func aMainActorTaskResumedWhileItsSchedulerIsFreed() async {
        await #expect(processExitsWith: .success) {
            let pendings = await MainActor.run {
                (0..<300).map { _ in StandInRace.resumeAsTheSchedulerGoes() }
            }
            try await Task.sleep(for: .milliseconds(200))
            #expect(pendings.allSatisfy { !$0.ranAfterResume })
            await LifetimeScenarios.debounceStillExact()
        }
    }
}

@MainActor enum StandInRace {
    /// A captured main-actor task waiting on a continuation, resumed from a Dispatch callback
    /// just as its scheduler is released, on the main actor.
    static func resumeAsTheSchedulerGoes() -> PendingResume {
        let pending = PendingResume()
        do {
            let scheduler = TestScheduler()
            scheduler.withCapturedTasks {
                _ = Task { @MainActor in
                    await withCheckedContinuation { pending.store($0) }
                    pending.markRan()
                }
                scheduler.advance(by: 0)
            }
            pending.resumeFromDispatch()
        }
        return pending
    }
}
