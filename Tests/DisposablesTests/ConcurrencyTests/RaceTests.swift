import Dispatch
@_spi(SchedulersInternal) import Disposables
import Synchronization
import Testing
import TestSupport

/// Disposal racing disposal, addition and replacement. Each race is bounded by a round count, not
/// by time, and checks an exact outcome per round: a child disposed exactly once, never lost.
///
/// `runInLockstep` starts every thread on each round together; `concurrentPerform` alone rarely
/// overlaps anything on this 2-core machine (its caller tends to run every iteration itself).
@Suite(.ownThread, .timeLimit(.minutes(5)), .serialized) struct RaceTests {
    @Test func anActionRunsExactlyOnceWhenEightThreadsDisposeIt() {
        for round in 0..<stressCount(10_000) {
            let runs = Counter()
            let disposable = ActionDisposable { runs.increment() }
            DispatchQueue.concurrentPerform(iterations: 8) { _ in disposable.dispose() }
            #expect(runs.value == 1, "round \(round)")
            #expect(disposable.isDisposed, "round \(round)")
            if runs.value != 1 { return }
        }
    }

    @Test func anActionRunsExactlyOnceWhenEightThreadsInLockstepDisposeIt() {
        let rounds = stressCount(10_000)
        let runs = (0..<rounds).map { _ in Counter() }
        let disposables = runs.map { counter in ActionDisposable { counter.increment() } }
        runInLockstep(threads: 8, rounds: rounds, jitter: 16) { _, round in
            disposables[round].dispose()
        }
        #expect(runs.allSatisfy { $0.value == 1 })
        #expect(disposables.allSatisfy { $0.isDisposed })
    }

    @Test func everyChildAddedWhileACompoundIsDisposedEndsDisposedExactlyOnce() {
        let rounds = stressCount(20_000)
        let compounds = (0..<rounds).map { _ in CompoundDisposable() }
        let children = (0..<rounds).map { _ in (0..<8).map { _ in SpyDisposable() } }
        runInLockstep(threads: 3, rounds: rounds, jitter: 256) { thread, round in
            switch thread {
            case 0: for child in children[round][..<4] { compounds[round].add(child) }
            case 1: for child in children[round][4...] { compounds[round].add(child) }
            default: compounds[round].dispose()
            }
        }
        let lost = children.indices.filter { round in children[round].contains { $0.disposeCount != 1 } }
        #expect(lost.isEmpty, "rounds where a child was not disposed exactly once: \(lost.prefix(10))")
        #expect(compounds.allSatisfy { $0.isDisposed })
    }

    @Test func childrenAddedFromManyThreadsAreAllDisposedOnce() {
        let compound = CompoundDisposable()
        let children = (0..<8).map { _ in (0..<2_000).map { _ in SpyDisposable() } }
        runInLockstep(threads: 8, rounds: 2_000, jitter: 0) { thread, round in
            compound.add(children[thread][round])
        }
        compound.dispose()
        #expect(children.joined().allSatisfy { $0.disposeCount == 1 })
    }

    @Test func concurrentDisposalsOfACompoundDisposeEachChildOnce() {
        let rounds = stressCount(5_000)
        let children = (0..<rounds).map { _ in (0..<4).map { _ in SpyDisposable() } }
        let compounds = children.map { CompoundDisposable($0) }
        runInLockstep(threads: 4, rounds: rounds, jitter: 16) { _, round in
            compounds[round].dispose()
        }
        #expect(children.joined().allSatisfy { $0.disposeCount == 1 })
    }

    @Test func aChildRemovedWhileTheCompoundIsDisposedIsDisposedAtMostOnce() {
        let rounds = stressCount(20_000)
        let removed = (0..<rounds).map { _ in SpyDisposable() }
        let kept = (0..<rounds).map { _ in SpyDisposable() }
        let compounds = (0..<rounds).map { CompoundDisposable([removed[$0], kept[$0]]) }
        runInLockstep(threads: 2, rounds: rounds) { thread, round in
            if thread == 0 { compounds[round].remove(removed[round]) } else { compounds[round].dispose() }
        }
        #expect(removed.allSatisfy { $0.disposeCount <= 1 })
        #expect(kept.allSatisfy { $0.disposeCount == 1 })
    }

    // RAC: "should not crash when racing between swapInDisposable and disposable", and beyond it:
    // a swap racing dispose never loses a disposable. Each round, one thread swaps in four
    // replacements one after another while another disposes the serial disposable; every
    // disposable that went in must come out exactly once: handed back by a swap (undisposed) or
    // disposed (once) by the serial disposable, never both, never neither.
    @Test func swapRacingDisposeNeitherCrashesNorLosesADisposable() {
        let rounds = stressCount(100_000)
        let swapsPerRound = 4
        let initials = (0..<rounds).map { _ in SpyDisposable() }
        let replacements = (0..<rounds).map { _ in (0..<swapsPerRound).map { _ in SpyDisposable() } }
        let serials = initials.map { SerialDisposable($0) }
        let handedBack = (0..<rounds).map { _ in HandedBack() }
        runInLockstep(threads: 2, rounds: rounds) { thread, round in
            if thread == 0 {
                for replacement in replacements[round] {
                    handedBack[round].append(serials[round].swap(replacement))
                }
            } else {
                serials[round].dispose()
            }
        }
        var failures: [Int] = []
        for round in 0..<rounds {
            let returned = handedBack[round].identities
            let everyOneOutOnce = ([initials[round]] + replacements[round]).allSatisfy { spy in
                let wasReturned = returned.contains(ObjectIdentifier(spy))
                return wasReturned ? spy.disposeCount == 0 : spy.disposeCount == 1
            }
            let ok = everyOneOutOnce && serials[round].isDisposed && serials[round].disposable == nil
            if !ok { failures.append(round) }
        }
        #expect(failures.isEmpty, "\(failures.count) rounds lost or double-disposed, e.g. \(failures.prefix(10))")
    }

    // RAC: "should not crash when racing between swapInDisposable and disposable" (the getter).
    @Test func swapRacingTheGetterDoesNotCrash() {
        let serial = SerialDisposable()
        let swapsDone = Atomic<Bool>(false)
        runInLockstep(threads: 2, rounds: 1, jitter: 0) { thread, _ in
            if thread == 0 {
                for _ in 0..<stressCount(100_000) { serial.swap(ActionDisposable {}) }
                swapsDone.store(true, ordering: .releasing)
            } else {
                while !swapsDone.load(ordering: .acquiring) { _ = serial.disposable }
            }
        }
        let last = serial.disposable
        #expect(last != nil)
        serial.dispose()
        #expect(last?.isDisposed == true)
    }

    @Test func concurrentDisposalsOfASerialDisposeTheInnerOneOnce() {
        let rounds = stressCount(5_000)
        let inners = (0..<rounds).map { _ in SpyDisposable() }
        let serials = inners.map { SerialDisposable($0) }
        runInLockstep(threads: 4, rounds: rounds, jitter: 16) { _, round in
            serials[round].dispose()
        }
        #expect(inners.allSatisfy { $0.disposeCount == 1 })
    }
}

/// What one round's swaps handed back, appended by one thread and read after all have finished.
private final class HandedBack: Sendable {
    private let returned = Lock<[ObjectIdentifier]>([])

    func append(_ disposable: (any Disposable)?) {
        guard let disposable else { return }
        returned.withLock { $0.append(ObjectIdentifier(disposable)) }
    }

    var identities: [ObjectIdentifier] { returned.withLock { $0 } }
}
