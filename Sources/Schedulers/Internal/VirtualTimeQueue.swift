/// A binary min-heap of scheduled items keyed on `(time, sequence)`: the earliest time first,
/// and among equal times the lowest sequence number, i.e. the first scheduled (FIFO).
///
/// swift-collections' `Heap` does not break ties FIFO, and sorting an array on every insert
/// (ReactiveSwift, combine-schedulers) is O(n) per insert; this is O(log n) per push and pop.
///
/// The heap itself holds only plain keys (time, sequence, slot); the items sit in `items`, at
/// their slot, and never move. Sifting a key through 20 levels of a million-entry heap then
/// copies trivial values, instead of retaining and releasing an item at every level (which
/// made a debug-build pop about ten times slower: an atomic on a cold object per copy).
struct VirtualTimeQueue<Item> {
    struct Entry {
        var time: Double
        var sequence: UInt64
        var item: Item
    }

    /// The heap, ordered on `(time, sequence)`.
    private var keys: [VirtualTimeKey] = []
    /// Items by slot; nil in a free slot.
    private var items: [Item?] = []
    private var freeSlots: [Int] = []

    var count: Int { keys.count }
    var isEmpty: Bool { keys.isEmpty }

    /// The earliest entry. - Complexity: O(1).
    var first: Entry? {
        keys.first.map(entry(for:))
    }

    /// Every entry, in heap order (not sorted). - Complexity: O(n).
    var entries: [Entry] {
        keys.map(entry(for:))
    }

    private func entry(for key: VirtualTimeKey) -> Entry {
        Entry(time: key.time, sequence: key.sequence, item: items[key.slot]!)
    }

    /// - Complexity: O(log n).
    mutating func push(_ entry: Entry) {
        let slot: Int
        if let free = freeSlots.popLast() {
            slot = free
            items[slot] = entry.item
        } else {
            slot = items.count
            items.append(entry.item)
        }
        keys.append(VirtualTimeKey(time: entry.time, sequence: entry.sequence, slot: slot))
        siftUp(keys.count - 1)
    }

    /// Removes and returns the earliest entry. - Complexity: O(log n).
    @discardableResult
    mutating func popFirst() -> Entry? {
        guard !keys.isEmpty else { return nil }
        keys.swapAt(0, keys.count - 1)
        let key = keys.removeLast()
        if !keys.isEmpty { siftDown(0) }
        return Entry(time: key.time, sequence: key.sequence, item: takeItem(at: key.slot))
    }

    /// Removes the entries matching `isExcluded`, then restores heap order.
    /// - Complexity: O(n).
    mutating func removeAll(where isExcluded: (Entry) -> Bool) {
        var kept: [VirtualTimeKey] = []
        kept.reserveCapacity(keys.count)
        for key in keys {
            if isExcluded(entry(for: key)) {
                _ = takeItem(at: key.slot)
            } else {
                kept.append(key)
            }
        }
        keys = kept
        for index in stride(from: keys.count / 2 - 1, through: 0, by: -1) {
            siftDown(index)
        }
    }

    /// Empties the queue and hands back what it held.
    mutating func drain() -> [Entry] {
        defer {
            keys = []
            items = []
            freeSlots = []
        }
        return entries
    }

    private mutating func takeItem(at slot: Int) -> Item {
        freeSlots.append(slot)
        return items[slot].take()!
    }

    private mutating func siftUp(_ start: Int) {
        keys.withUnsafeMutableBufferPointer { keys in
            var child = start
            let key = keys[child]
            while child > 0 {
                let parent = (child - 1) / 2
                guard key.precedes(keys[parent]) else { break }
                keys[child] = keys[parent]
                child = parent
            }
            keys[child] = key
        }
    }

    private mutating func siftDown(_ start: Int) {
        keys.withUnsafeMutableBufferPointer { keys in
            var parent = start
            let key = keys[parent]
            let count = keys.count
            while true {
                var child = 2 * parent + 1
                guard child < count else { break }
                if child + 1 < count, keys[child + 1].precedes(keys[child]) { child += 1 }
                guard keys[child].precedes(key) else { break }
                keys[parent] = keys[child]
                parent = child
            }
            keys[parent] = key
        }
    }

    #if DEBUG
    /// Debug-only check that every parent precedes its children and every key has its item.
    func checkInvariants() {
        for index in keys.indices.dropFirst() {
            precondition(!keys[index].precedes(keys[(index - 1) / 2]), "VirtualTimeQueue: heap order broken at \(index)")
        }
        precondition(keys.count + freeSlots.count == items.count, "VirtualTimeQueue: slots out of step")
        for key in keys {
            precondition(items[key.slot] != nil, "VirtualTimeQueue: key without an item at slot \(key.slot)")
        }
    }
    #endif
}

/// A heap key: plain data, not generic, so sifting it costs no reference counting or
/// generic metadata lookups, even in a debug build.
struct VirtualTimeKey {
    var time: Double
    var sequence: UInt64
    /// Where the item sits in the queue's `items`.
    var slot: Int

    @inline(__always)
    func precedes(_ other: VirtualTimeKey) -> Bool {
        time < other.time || (time == other.time && sequence < other.sequence)
    }
}

extension VirtualTimeQueue: Sendable where Item: Sendable {}
extension VirtualTimeQueue.Entry: Sendable where Item: Sendable {}
