import Testing
import TestSupport
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif
import Foundation
import Synchronization

/// Runs `body(thread, round)` on `threads` dedicated threads for `rounds` rounds, all threads
/// entering each round together (a spinning barrier that yields the CPU while it waits), so that
/// their operations on that round's objects really overlap. `DispatchQueue.concurrentPerform`
/// does not give that on a 2-core machine: its caller usually runs every iteration itself.
///
/// After the barrier each thread waits a seeded random number of spins (0..<`jitter`), so that
/// over many rounds each thread gets to go first. Returns when every thread has finished.
func runInLockstep(
    threads: Int, rounds: Int, jitter: Int = 64, seed: UInt64 = 0x10C_C57E9,
    _ body: @escaping @Sendable (_ thread: Int, _ round: Int) -> Void
) {
    expectMayBlock("runInLockstep")
    let barrier = SpinBarrier(parties: threads)
    let finished = DispatchGroup()
    for thread in 0..<threads {
        finished.enter()
        Thread {
            var random = SeededRandom(seed: seed &+ UInt64(thread))
            for round in 0..<rounds {
                barrier.arriveAndWait()
                if jitter > 0 { barrier.spin(Int.random(in: 0..<jitter, using: &random)) }
                body(thread, round)
            }
            finished.leave()
        }.start()
    }
    finished.wait()
}

/// A reusable barrier for a fixed number of threads: spins briefly, then yields the CPU.
private final class SpinBarrier: Sendable {
    private let parties: Int
    private let arrived = Atomic<Int>(0)

    init(parties: Int) {
        self.parties = parties
    }

    func arriveAndWait() {
        let count = arrived.wrappingAdd(1, ordering: .acquiringAndReleasing).newValue
        // Everyone who arrives in the same generation waits for the generation to fill up.
        let target = ((count - 1) / parties + 1) * parties
        var spins = 0
        while arrived.load(ordering: .acquiring) < target {
            spins += 1
            if spins % 32 == 0 { sched_yield() }
        }
    }

    /// Busy-waits `count` iterations (a load the optimiser cannot drop).
    func spin(_ count: Int) {
        for _ in 0..<count { _ = arrived.load(ordering: .relaxed) }
    }
}
