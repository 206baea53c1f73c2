import Foundation
import HeapModule
import Schedulers

/// Workload 4: `actions` actions at seeded random virtual times (within 1,000 s), all scheduled,
/// then all run. Ours is a ``TestScheduler`` (`schedule(after:)`, then `stepAll()`). The
/// reference is what a user would write instead with swift-collections: a `Heap` of
/// `(time, sequence)` keys carrying the closures (``CollectionsHeapQueue``); the limit is
/// ``BareHeap``, a hand-written binary heap of `(time, sequence, closure)` with nothing else.
public enum VirtualTimeWorkload {
    /// The virtual times of one run: the same for every system and every run.
    public static func times(count: Int, seed: UInt64 = 42) -> [Double] {
        var random = SplitMix64(seed: seed)
        return (0..<count).map { _ in Double.random(in: 0..<1_000, using: &random) }
    }

    public static func ours(times: [Double]) {
        let scheduler = TestScheduler()
        let counter = Counter()
        let action: @Sendable () -> Void = { counter.value &+= 1 }
        for time in times {
            scheduler.schedule(after: Date(timeIntervalSinceReferenceDate: time), action)
        }
        scheduler.stepAll()
        precondition(counter.value == times.count)
    }

    /// The reference: swift-collections' `Heap`, as a user would build a minimal virtual-time
    /// queue on it (FIFO among equal times through the sequence number, since `Heap`'s own ties
    /// are not FIFO).
    public static func collectionsHeap(times: [Double]) {
        var queue = CollectionsHeapQueue()
        let counter = Counter()
        let action: () -> Void = { counter.value &+= 1 }
        for time in times { queue.schedule(at: time, action) }
        while let next = queue.popNext() { next() }
        precondition(counter.value == times.count)
    }

    public static func bareHeap(times: [Double]) {
        var heap = BareHeap()
        let counter = Counter()
        let action: () -> Void = { counter.value &+= 1 }
        for time in times { heap.push(time: time, action) }
        while let next = heap.pop() { next() }
        precondition(counter.value == times.count)
    }
}

/// The limit for the virtual-time workload: a binary min-heap of `(time, sequence, closure)`,
/// ordered by time, then by sequence (FIFO among equal times). No lock, no disposable, no clock.
public struct BareHeap {
    private struct Entry {
        var time: Double
        var sequence: UInt64
        var action: () -> Void

        @inline(__always)
        func precedes(_ other: Entry) -> Bool {
            time < other.time || (time == other.time && sequence < other.sequence)
        }
    }

    private var entries: [Entry] = []
    private var nextSequence: UInt64 = 0

    public init() {}

    public mutating func push(time: Double, _ action: @escaping () -> Void) {
        var child = entries.count
        let entry = Entry(time: time, sequence: nextSequence, action: action)
        nextSequence &+= 1
        entries.append(entry)
        while child > 0 {
            let parent = (child - 1) / 2
            guard entry.precedes(entries[parent]) else { break }
            entries[child] = entries[parent]
            child = parent
        }
        entries[child] = entry
    }

    public mutating func pop() -> (() -> Void)? {
        guard let last = entries.popLast() else { return nil }
        guard !entries.isEmpty else { return last.action }
        let first = entries[0]
        var parent = 0
        let count = entries.count
        while true {
            var child = 2 * parent + 1
            guard child < count else { break }
            if child + 1 < count, entries[child + 1].precedes(entries[child]) { child += 1 }
            guard entries[child].precedes(last) else { break }
            entries[parent] = entries[child]
            parent = child
        }
        entries[parent] = last
        return first.action
    }
}

/// The reference for the virtual-time workload: swift-collections 1.6 `Heap` of entries ordered
/// by `(time, sequence)`, each carrying its closure; scheduling inserts, running pops the minimum.
public struct CollectionsHeapQueue {
    private struct Entry: Comparable {
        var time: Double
        var sequence: UInt64
        var action: () -> Void

        static func < (lhs: Entry, rhs: Entry) -> Bool {
            lhs.time < rhs.time || (lhs.time == rhs.time && lhs.sequence < rhs.sequence)
        }

        static func == (lhs: Entry, rhs: Entry) -> Bool {
            lhs.time == rhs.time && lhs.sequence == rhs.sequence
        }
    }

    private var heap = Heap<Entry>()
    private var nextSequence: UInt64 = 0

    public init() {}

    public mutating func schedule(at time: Double, _ action: @escaping () -> Void) {
        heap.insert(Entry(time: time, sequence: nextSequence, action: action))
        nextSequence &+= 1
    }

    public mutating func popNext() -> (() -> Void)? {
        heap.popMin()?.action
    }
}
