@testable import Schedulers
import Testing
import TestSupport

/// The 4-ary heap under TestScheduler: earliest time first, FIFO among equals, with keys that
/// hold only a summary of the time, so equal summaries must be ordered by the exact values.
@Suite(.ownThread, .timeLimit(.minutes(5))) struct VirtualTimeQueueTests {
    typealias Queue = VirtualTimeQueue
    typealias Key = VirtualTimeKey

    /// What ``VirtualActionSlots`` keeps for the queue: each slot's exact time and sequence.
    struct Table: VirtualTimeOrder {
        var times: [VirtualTime] = []
        var sequences: [UInt64] = []

        /// A new slot due at `time`, with the next sequence number unless one is given.
        mutating func add(_ time: VirtualTime, sequence: UInt64? = nil) -> Key {
            times.append(time)
            sequences.append(sequence ?? UInt64(sequences.count))
            return Key(time: time, slot: UInt32(times.count - 1), isRepeating: false)
        }

        func prefetch(_ slot: UInt32) {}

        func precedes(_ slot: UInt32, _ other: UInt32) -> Bool {
            let (time, otherTime) = (times[Int(slot)], times[Int(other)])
            return time < otherTime || (time == otherTime && sequences[Int(slot)] < sequences[Int(other)])
        }
    }

    private func popAll(_ queue: Queue, _ table: Table) -> [UInt32] {
        var popped: [UInt32] = []
        while let key = queue.popFirst(order: table) {
            popped.append(key.slot)
            #if DEBUG
            queue.checkInvariants(order: table)
            #endif
        }
        return popped
    }

    private func isSorted(_ slots: [UInt32], _ table: Table) -> Bool {
        zip(slots, slots.dropFirst()).allSatisfy { table.precedes($0, $1) }
    }

    @Test func anEmptyQueueHasNothingToPop() {
        let queue = Queue()
        #expect(queue.isEmpty && queue.count == 0 && queue.first(order: Table()) == nil)
        #expect(queue.popFirst(order: Table()) == nil)
    }

    @Test(arguments: [1, 2, 3, 4, 5, 13, 14, 30, 1_000, 20_000])
    func popsInTimeThenSequenceOrder(count: Int) {
        var random = SeededRandom(seed: UInt64(count))
        let queue = Queue()
        var table = Table()
        for _ in 0..<count {
            queue.push(table.add(VirtualTime(seconds: Double(random.next() % 8))), order: table)
            #if DEBUG
            if count <= 1_000 { queue.checkInvariants(order: table) }
            #endif
        }
        #expect(queue.count == count)
        let popped = popAll(queue, table)
        #expect(popped.count == count)
        #expect(isSorted(popped, table))
        #expect(Set(popped.map { Int($0) }) == Set(0..<count))
    }

    @Test func sequencesPushedOutOfOrderStillPopBySequenceAmongEqualTimes() {
        // A repeating action is pushed back with its original, lower sequence.
        let queue = Queue()
        var table = Table()
        for sequence: UInt64 in [5, 2, 9, 0, 7] {
            queue.push(table.add(VirtualTime(seconds: 1), sequence: sequence), order: table)
        }
        #expect(popAll(queue, table).map { table.sequences[Int($0)] } == [0, 2, 5, 7, 9])
    }

    /// Times closer than the summary's resolution share a summary, and still pop in exact order:
    /// an attosecond apart at 1,000 s and at 2^60 s, and below zero. (At ±1e300 s, beyond the
    /// exact range, adding an attosecond changes nothing: those cases pop equal times FIFO.)
    @Test(arguments: [1_000.0, 0x1p60, -1_000.0, 1e300, -1e300])
    func timesThatShareASummaryPopInExactOrder(around seconds: Double) {
        let base = VirtualTime(seconds: seconds)
        let times = (0..<64).map { index in base + VirtualTime(raw: Int128(index * 5 % 8)) }
        let sharing = times.contains { time in times.contains { $0.coarse == time.coarse && $0 != time } }
        #expect(sharing || !base.isExact)
        let queue = Queue()
        var table = Table()
        for time in times { queue.push(table.add(time), order: table) }
        let popped = popAll(queue, table)
        #expect(isSorted(popped, table))
        #expect(popped.map { table.times[Int($0)] } == times.sorted())
    }

    /// The summary keeps the order: `a < b` implies `a.coarse <= b.coarse`, equal values have
    /// equal summaries, and values that differ by more than its resolution differ in it.
    @Test func theTimeSummaryKeepsTheOrder() {
        var random = SeededRandom(seed: 11)
        var samples: [VirtualTime] = [
            .zero, VirtualTime(raw: 1), VirtualTime(raw: -1), .greatestFinite, .infinity, .negativeInfinity,
            VirtualTime(seconds: .leastNonzeroMagnitude), VirtualTime(seconds: 0x1p62), VirtualTime(seconds: -0x1p62),
            VirtualTime(raw: VirtualTime.exactLimit - 1), VirtualTime(raw: -VirtualTime.exactLimit + 1),
        ]
        for _ in 0..<2_000 {
            let magnitude = Int128(random.next() >> (random.next() % 64)) << (random.next() % 60)
            samples.append(VirtualTime(raw: random.next() % 2 == 0 ? magnitude : -magnitude))
            samples.append(VirtualTime(seconds: Double(bitPattern: random.next() & ~(0x7FF << 52) | (UInt64(random.next() % 2047) << 52))))
        }
        samples.sort()
        for (earlier, later) in zip(samples, samples.dropFirst()) {
            #expect(earlier.coarse <= later.coarse, "\(earlier.raw) < \(later.raw)")
            if earlier == later { #expect(earlier.coarse == later.coarse) }
        }
        #expect(VirtualTime(seconds: 1_000).coarse < VirtualTime(seconds: 1_000.000_000_001).coarse)
        #expect(VirtualTime(seconds: -1).coarse < VirtualTime.zero.coarse)
    }

    @Test func interleavedPushesAndPopsKeepOrder() {
        var random = SeededRandom(seed: 42)
        let queue = Queue()
        var table = Table()
        var lastPopped: UInt32?
        for _ in 0..<5_000 {
            if random.next() % 3 == 0, let key = queue.popFirst(order: table) {
                // Pushes never go below the last popped time here, like a scheduler's `now`.
                if let last = lastPopped { #expect(table.precedes(last, key.slot)) }
                lastPopped = key.slot
            } else {
                let floor = lastPopped.map { table.times[Int($0)] } ?? .zero
                queue.push(table.add(floor + VirtualTime(seconds: Double(random.next() % 5))), order: table)
            }
        }
        #expect(isSorted(popAll(queue, table), table))
    }

    /// A burst at one time goes through the run (a FIFO beside the heap): it pops in the order
    /// pushed, and merges by time and sequence with the heap, which holds the same time's
    /// earlier keys, keys due later, and a repeating action's key pushed back with its first,
    /// lower sequence.
    @Test func aBurstAtOneTimePopsFIFOAndMergesWithTheHeap() {
        let queue = Queue()
        var table = Table()
        // Scheduled earlier for 1 s and 2 s, while `now` was before 1 s.
        for seconds in [2.0, 1, 2, 1] { queue.push(table.add(VirtualTime(seconds: seconds)), order: table) }
        // `now` is 1 s: a burst, then a repeating action back at 1 s with sequence 0, then more.
        for _ in 0..<500 { queue.pushOntoRun(table.add(VirtualTime(seconds: 1))) }
        queue.push(table.add(VirtualTime(seconds: 1), sequence: 0), order: table)
        queue.push(table.add(VirtualTime(seconds: 1.5)), order: table)
        for _ in 0..<100 { queue.pushOntoRun(table.add(VirtualTime(seconds: 1))) }
        #expect(queue.count == 606)
        #if DEBUG
        queue.checkInvariants(order: table)
        #endif
        let popped = popAll(queue, table)
        #expect(popped.count == 606)
        #expect(isSorted(popped, table))
        // The repeating action's key first (sequence 0), then the two scheduled earlier.
        #expect(Array(popped.prefix(3)) == [504, 1, 3])
        #expect(Array(popped.suffix(3)) == [505, 0, 2])
    }

    /// A scheduler's pattern: keys due at `now` go to the run, later ones to the heap, pops move
    /// `now` on, and the run fills and drains as the moment's actions schedule more.
    @Test func pushesAtTheMomentBeingRunKeepOrder() {
        var random = SeededRandom(seed: 5)
        let queue = Queue()
        var table = Table()
        var now = VirtualTime.zero
        var lastPopped: UInt32?
        for _ in 0..<20_000 {
            if random.next() % 2 == 0, let key = queue.popFirst(order: table) {
                if let last = lastPopped { #expect(table.precedes(last, key.slot)) }
                lastPopped = key.slot
                now = table.times[Int(key.slot)]
            } else if random.next() % 8 == 0 {
                queue.push(table.add(now + VirtualTime(seconds: Double(random.next() % 3 + 1))), order: table)
            } else {
                queue.pushOntoRun(table.add(now))
            }
        }
        #expect(isSorted(popAll(queue, table), table))
    }

    @Test func removeAllWhereKeepsTheRunInOrder() {
        let queue = Queue()
        var table = Table()
        for _ in 0..<300 { queue.pushOntoRun(table.add(.zero)) }
        for index in 0..<300 { queue.push(table.add(VirtualTime(seconds: Double(index % 7))), order: table) }
        queue.removeAll(where: { $0.slot % 3 == 0 }, order: table)
        #if DEBUG
        queue.checkInvariants(order: table)
        #endif
        #expect(queue.count == 400)
        let popped = popAll(queue, table)
        #expect(isSorted(popped, table))
        #expect(popped.allSatisfy { $0 % 3 != 0 })
    }

    @Test func removeAllKeepsHeapOrder() {
        var random = SeededRandom(seed: 7)
        let queue = Queue()
        var table = Table()
        for _ in 0..<2_000 {
            queue.push(table.add(VirtualTime(seconds: Double(random.next() % 50))), order: table)
        }
        queue.removeAll(where: { $0.slot % 3 == 0 }, order: table)
        #if DEBUG
        queue.checkInvariants(order: table)
        #endif
        let popped = popAll(queue, table)
        #expect(isSorted(popped, table))
        #expect(popped.allSatisfy { $0 % 3 != 0 })
        #expect(popped.count == 2_000 - 667)
    }

    @Test func removeAllEmptiesTheQueue() {
        let queue = Queue()
        var table = Table()
        for _ in 0..<10 {
            queue.push(table.add(.zero), order: table)
        }
        #expect(queue.count == 10)
        queue.removeAll()
        #expect(queue.isEmpty && queue.popFirst(order: table) == nil)
        queue.push(table.add(.zero), order: table)
        #expect(queue.popFirst(order: table)?.slot == 10)
    }
}
