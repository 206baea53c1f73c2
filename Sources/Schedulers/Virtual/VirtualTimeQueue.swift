/// A binary min-heap of ``VirtualTimeKey``s keyed on `(time, sequence)`: the earliest time first,
/// and among equal times the lowest sequence number, i.e. the first scheduled (FIFO).
///
/// swift-collections' `Heap` does not break ties FIFO, and sorting an array on every insert
/// (ReactiveSwift, combine-schedulers) is O(n) per insert; this is O(log n) per push and pop.
///
/// The heap holds only plain keys; what they stand for sits elsewhere, at the key's slot
/// (``VirtualActionSlots``), and never moves. Sifting a key through 20 levels of a
/// million-entry heap then copies trivial values, instead of retaining and releasing an item at
/// every level (which made a debug-build pop about ten times slower: an atomic on a cold object
/// per copy).
struct VirtualTimeQueue: Sendable {
    /// The heap, ordered on `(time, sequence)`.
    private var keys: [VirtualTimeKey] = []

    var count: Int { keys.count }
    var isEmpty: Bool { keys.isEmpty }

    /// The earliest key. - Complexity: O(1).
    var first: VirtualTimeKey? { keys.first }

    /// - Complexity: O(log n).
    mutating func push(_ key: VirtualTimeKey) {
        keys.append(key)
        siftUp(keys.count - 1)
    }

    /// Removes and returns the earliest key. - Complexity: O(log n).
    @discardableResult
    mutating func popFirst() -> VirtualTimeKey? {
        guard let last = keys.popLast() else { return nil }
        guard !keys.isEmpty else { return last }
        let first = keys[0]
        keys[0] = last
        siftDown(0)
        return first
    }

    /// Removes the keys matching `isExcluded`, then restores heap order.
    /// - Complexity: O(n).
    mutating func removeAll(where isExcluded: (VirtualTimeKey) -> Bool) {
        keys.removeAll(where: isExcluded)
        for index in stride(from: keys.count / 2 - 1, through: 0, by: -1) {
            siftDown(index)
        }
    }

    /// Empties the queue.
    mutating func removeAll() {
        keys = []
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
    /// Debug-only check that every parent precedes its children.
    func checkInvariants() {
        for index in keys.indices.dropFirst() {
            precondition(!keys[index].precedes(keys[(index - 1) / 2]), "VirtualTimeQueue: heap order broken at \(index)")
        }
    }
    #endif
}

/// A heap key: plain data, not generic, so sifting it costs no reference counting or
/// generic metadata lookups, even in a debug build. 32 bytes (29 used, aligned to the
/// `Int128`): at a million pending actions the heap does not fit in the cache, and every byte is
/// memory traffic, but the time must be exact (``VirtualTime``), which a `Double` is not.
struct VirtualTimeKey: Sendable {
    var time: VirtualTime
    var sequence: UInt64
    /// Where the action sits in ``VirtualActionSlots``.
    var slot: UInt32
    /// Kept here so that popping a one-shot action reads nothing but its closure.
    var isRepeating: Bool

    @inline(__always)
    func precedes(_ other: VirtualTimeKey) -> Bool {
        time < other.time || (time == other.time && sequence < other.sequence)
    }
}
