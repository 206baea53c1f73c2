@testable import Schedulers
import Testing
import TestSupport

/// The (time, sequence) min-heap under TestScheduler: earliest time first, FIFO among equals.
@Suite(.ownThread, .timeLimit(.minutes(5))) struct VirtualTimeQueueTests {
    typealias Queue = VirtualTimeQueue
    typealias Key = VirtualTimeKey

    private func key(time: Double, sequence: UInt64, slot: Int = 0) -> Key {
        Key(time: VirtualTime(seconds: time), sequence: sequence, slot: UInt32(slot), isRepeating: false)
    }

    private func popAll(_ queue: inout Queue) -> [Key] {
        var popped: [Key] = []
        while let entry = queue.popFirst() { popped.append(entry) }
        return popped
    }

    private func isSorted(_ entries: [Key]) -> Bool {
        zip(entries, entries.dropFirst()).allSatisfy { $0.time < $1.time || ($0.time == $1.time && $0.sequence < $1.sequence) }
    }

    @Test func anEmptyQueueHasNothingToPop() {
        var queue = Queue()
        #expect(queue.isEmpty && queue.count == 0 && queue.first == nil)
        #expect(queue.popFirst() == nil)
    }

    @Test(arguments: [1, 2, 3, 10, 1_000])
    func popsInTimeThenSequenceOrder(count: Int) {
        var random = SeededRandom(seed: UInt64(count))
        var queue = Queue()
        for sequence in 0..<UInt64(count) {
            queue.push(key(time: Double(random.next() % 8), sequence: sequence, slot: Int(sequence)))
            #if DEBUG
            queue.checkInvariants()
            #endif
        }
        #expect(queue.count == count)
        let popped = popAll(&queue)
        #expect(popped.count == count)
        #expect(isSorted(popped))
        #expect(Set(popped.map { Int($0.slot) }) == Set(0..<count))
    }

    @Test func sequencesPushedOutOfOrderStillPopBySequenceAmongEqualTimes() {
        // A repeating action is pushed back with its original, lower sequence.
        var queue = Queue()
        for sequence: UInt64 in [5, 2, 9, 0, 7] {
            queue.push(key(time: 1, sequence: sequence, slot: Int(sequence)))
        }
        #expect(popAll(&queue).map(\.slot) == [0, 2, 5, 7, 9])
    }

    @Test func interleavedPushesAndPopsKeepOrder() {
        var random = SeededRandom(seed: 42)
        var queue = Queue()
        var sequence: UInt64 = 0
        var lastPopped: Key?
        for _ in 0..<5_000 {
            if random.next() % 3 == 0, let entry = queue.popFirst() {
                // Pushes never go below the last popped time here, like a scheduler's `now`.
                if let last = lastPopped {
                    #expect(last.time < entry.time || (last.time == entry.time && last.sequence < entry.sequence))
                }
                lastPopped = entry
            } else {
                let floor = lastPopped?.time ?? .zero
                queue.push(Key(time: floor + VirtualTime(seconds: Double(random.next() % 5)), sequence: sequence, slot: 0, isRepeating: false))
                sequence += 1
            }
        }
        #expect(isSorted(popAll(&queue)))
    }

    @Test func removeAllKeepsHeapOrder() {
        var random = SeededRandom(seed: 7)
        var queue = Queue()
        for sequence in 0..<UInt64(2_000) {
            queue.push(key(time: Double(random.next() % 50), sequence: sequence, slot: Int(sequence)))
        }
        queue.removeAll { $0.slot % 3 == 0 }
        #if DEBUG
        queue.checkInvariants()
        #endif
        let popped = popAll(&queue)
        #expect(isSorted(popped))
        #expect(popped.allSatisfy { $0.slot % 3 != 0 })
        #expect(popped.count == 2_000 - 667)
    }

    @Test func removeAllEmptiesTheQueue() {
        var queue = Queue()
        for sequence in 0..<UInt64(10) {
            queue.push(key(time: 0, sequence: sequence, slot: Int(sequence)))
        }
        #expect(queue.count == 10)
        queue.removeAll()
        #expect(queue.isEmpty && queue.popFirst() == nil)
    }
}
