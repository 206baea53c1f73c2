@_spi(SchedulersInternal) import Disposables
import Foundation
import Synchronization
import Testing
import TestSupport

/// Disposables hammered from several threads at once: nothing is lost, nothing is disposed twice.
@Suite(.ownThread, .timeLimit(.minutes(5))) struct DisposableContentionTests {
    /// Counts how many times each of `count` children was disposed.
    final class DisposalCounts: Sendable {
        private let counts: Lock<[Int]>

        init(_ count: Int) {
            counts = Lock(Array(repeating: 0, count: count))
        }

        func child(_ index: Int) -> ActionDisposable {
            ActionDisposable { [self] in counts.withLock { $0[index] += 1 } }
        }

        var values: [Int] { counts.withLock { $0 } }
    }

    /// 4 threads add children (every other one is removed again right after, by its adder), while
    /// a fifth disposes the compound disposable part-way through. Every child kept in is disposed
    /// exactly once, whether it was added before the dispose (disposed by it) or after (disposed
    /// by `add`); a removed child is disposed at most once, and never when its removal was seen to
    /// complete before the compound disposable was disposed.
    @Test func compoundDisposableAddRemoveDisposeRace() {
        let threads = 4
        let perThread = stressCount(25_000)
        let rounds = 4
        for round in 0..<rounds {
            let compound = CompoundDisposable()
            let counts = DisposalCounts(threads * perThread)
            // Set by a remover that saw the compound still undisposed after `remove` returned.
            let removedBeforeDispose = Lock(Array(repeating: false, count: threads * perThread))
            let added = Atomic<Int>(0)
            // The disposer waits until a round-dependent share of the children is in.
            let disposeAt = threads * perThread * (round + 1) / (rounds + 1)

            runOnThreads(threads + 1) { worker in
                if worker == threads {
                    while added.load(ordering: .acquiring) < disposeAt {}
                    compound.dispose()
                    return
                }
                for offset in 0..<perThread {
                    let index = worker * perThread + offset
                    let child = counts.child(index)
                    compound.add(child)
                    if index % 2 == 1 {
                        compound.remove(child)
                        if !compound.isDisposed {
                            removedBeforeDispose.withLock { $0[index] = true }
                        }
                    }
                    added.add(1, ordering: .releasing)
                }
            }

            let values = counts.values
            let early = removedBeforeDispose.withLock { $0 }
            #expect(compound.isDisposed)
            for index in values.indices {
                if index % 2 == 0 {
                    #expect(values[index] == 1, "kept child \(index) disposed \(values[index]) times (round \(round))")
                } else {
                    #expect(values[index] <= 1, "removed child \(index) disposed \(values[index]) times (round \(round))")
                    if early[index] {
                        #expect(values[index] == 0, "child \(index) removed before dispose was disposed (round \(round))")
                    }
                }
            }
        }
    }

    /// RAC's "should not crash when racing between swapInDisposable and disposable", made exact:
    /// 100,000 serial disposables, each swapped twice on one thread while another disposes it.
    /// The second one swapped in is always disposed exactly once; the first is disposed exactly
    /// when the second swap returned nil (the dispose came between the two swaps), else it is
    /// handed back undisposed.
    @Test func serialDisposableSwapVersusDispose() {
        let chunk = stressCount(1_000)
        let chunks = 100
        var outcomes = [0, 0]  // [first handed back, first disposed]
        for _ in 0..<chunks {
            let serials = (0..<chunk).map { _ in SerialDisposable() }
            let firstCounts = DisposalCounts(chunk)
            let secondCounts = DisposalCounts(chunk)
            let second = (0..<chunk).map { secondCounts.child($0) }
            let countedFirst = (0..<chunk).map { firstCounts.child($0) }
            let returned = Lock(Array(repeating: false, count: chunk))
            let start = Atomic<Int>(0)
            runOnThreads(2) { worker in
                // Both start together, so the two walks overlap.
                start.add(1, ordering: .acquiringAndReleasing)
                while start.load(ordering: .acquiring) < 2 {}
                if worker == 0 {
                    for index in 0..<chunk {
                        serials[index].swap(countedFirst[index])
                        let old = serials[index].swap(second[index])
                        if old != nil {
                            #expect(old === countedFirst[index])
                            returned.withLock { $0[index] = true }
                        }
                    }
                } else {
                    for index in 0..<chunk { serials[index].dispose() }
                }
            }
            let handedBack = returned.withLock { $0 }
            let firstValues = firstCounts.values
            let secondValues = secondCounts.values
            for index in 0..<chunk {
                #expect(secondValues[index] == 1, "second disposable disposed \(secondValues[index]) times")
                #expect(firstValues[index] == (handedBack[index] ? 0 : 1),
                        "first disposable disposed \(firstValues[index]) times, handed back: \(handedBack[index])")
                #expect(serials[index].isDisposed)
                #expect(serials[index].disposable == nil)
            }
            outcomes[0] += handedBack.filter { $0 }.count
            outcomes[1] += handedBack.filter { !$0 }.count
        }
        // How the races fell depends on thread timing, so it is not asserted; every round has one
        // outcome or the other, and a failure says how much the run raced (a green run is quiet).
        #expect(
            outcomes[0] + outcomes[1] == chunk * chunks,
            "SerialDisposable race: first handed back \(outcomes[0]) times, disposed \(outcomes[1]) times")
    }
}

/// Runs `body(0..<count)` on `count` threads of their own at once (not `concurrentPerform`,
/// which may run iterations one after another on a single worker, so a spin on another iteration
/// would never end) and returns when all are done.
private func runOnThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    expectMayBlock("runOnThreads")
    let group = DispatchGroup()
    for index in 0..<count {
        group.enter()
        Thread {
            body(index)
            group.leave()
        }.start()
    }
    group.wait()
}
