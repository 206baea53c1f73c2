/// A binary min-heap of scheduled items keyed on `(time, sequence)`: the earliest time first,
/// and among equal times the lowest sequence number, i.e. the first scheduled (FIFO).
///
/// swift-collections' `Heap` does not break ties FIFO, and sorting an array on every insert
/// (ReactiveSwift, combine-schedulers) is O(n) per insert; this is O(log n) per push and pop.
struct VirtualTimeQueue<Item> {
    struct Entry {
        var time: Double
        var sequence: UInt64
        var item: Item

        @inline(__always)
        func precedes(_ other: Entry) -> Bool {
            time < other.time || (time == other.time && sequence < other.sequence)
        }
    }

    private(set) var entries: [Entry] = []

    var count: Int { entries.count }
    var isEmpty: Bool { entries.isEmpty }

    /// The earliest entry. - Complexity: O(1).
    var first: Entry? { entries.first }

    /// - Complexity: O(log n).
    mutating func push(_ entry: Entry) {
        entries.append(entry)
        siftUp(entries.count - 1)
    }

    /// Removes and returns the earliest entry. - Complexity: O(log n).
    @discardableResult
    mutating func popFirst() -> Entry? {
        guard !entries.isEmpty else { return nil }
        entries.swapAt(0, entries.count - 1)
        let first = entries.removeLast()
        if !entries.isEmpty { siftDown(0) }
        return first
    }

    /// Removes the entries matching `isExcluded`, then restores heap order.
    /// - Complexity: O(n).
    mutating func removeAll(where isExcluded: (Entry) -> Bool) {
        entries.removeAll(where: isExcluded)
        for index in stride(from: entries.count / 2 - 1, through: 0, by: -1) {
            siftDown(index)
        }
    }

    /// Empties the queue and hands back what it held.
    mutating func drain() -> [Entry] {
        defer { entries = [] }
        return entries
    }

    private mutating func siftUp(_ start: Int) {
        var child = start
        let entry = entries[child]
        while child > 0 {
            let parent = (child - 1) / 2
            guard entry.precedes(entries[parent]) else { break }
            entries[child] = entries[parent]
            child = parent
        }
        entries[child] = entry
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        let entry = entries[parent]
        let count = entries.count
        while true {
            var child = 2 * parent + 1
            guard child < count else { break }
            if child + 1 < count, entries[child + 1].precedes(entries[child]) { child += 1 }
            guard entries[child].precedes(entry) else { break }
            entries[parent] = entries[child]
            parent = child
        }
        entries[parent] = entry
    }

    #if DEBUG
    /// Debug-only check that every parent precedes its children.
    func checkInvariants() {
        for index in entries.indices.dropFirst() {
            precondition(!entries[index].precedes(entries[(index - 1) / 2]), "VirtualTimeQueue: heap order broken at \(index)")
        }
    }
    #endif
}

extension VirtualTimeQueue: Sendable where Item: Sendable {}
extension VirtualTimeQueue.Entry: Sendable where Item: Sendable {}
