import CurrentSchedulerSlot

/// A 4-ary min-heap of ``VirtualTimeKey``s in `(time, sequence)` order: the earliest time first,
/// and among equal times the lowest sequence number, i.e. the first scheduled (FIFO).
/// Not thread-safe: kept under the scheduler core's lock.
///
/// swift-collections' `Heap` does not break ties FIFO, and sorting an array on every insert
/// (ReactiveSwift, combine-schedulers) is O(n) per insert; this is O(log n) per push and pop.
///
/// Laid out for the pop, which at a million pending actions is a chain of cache misses, one per
/// level the hole goes down:
/// - A key is 16 bytes: a 64-bit summary of the time (``VirtualTime/coarse``) and the action's
///   slot (``VirtualActionSlots``). The exact time and the sequence number stay at the slot,
///   and are read only when two summaries are equal (``VirtualTimeOrder``): equal times, in
///   practice. (With them in the key, a key was 32 bytes.)
/// - A burst of actions at one time (`schedule {}` in a loop, every job of a moment) bypasses
///   the heap: an action scheduled at the scheduler's `now` goes to a FIFO of its own (the
///   *run*), and a pop takes the earlier of the run's head and the heap's root. As `now` never
///   moves backwards and sequence numbers only grow, the run is in `(time, sequence)` order
///   without a comparison. Pushing onto the run and popping from it are O(1) and read no slot;
///   in the heap every comparison among equal times reads two slots (the benchmarks' "all at one
///   time" row was 1.55x swift-collections' `Heap`, 2,828 instructions an action against 913).
/// - Four children per node halve the levels of a binary heap, and the four siblings fill one
///   64-byte cache line exactly: the buffer is 64-byte aligned and the root sits at index 3, so
///   that each node's children start on a line. A level costs one miss, not two.
/// - The pop goes down the smallest children to a leaf without comparing the key that fills the
///   hole (the last one, which almost always belongs near the bottom), then moves it up: three
///   comparisons a level instead of four (Floyd's variant).
/// - The pop prefetches what comes next (`schedulers_prefetch`, a C header, as Swift has none):
///   the next root's slot entry once the first level decides it, and, beyond the L2 cache, each
///   level's grandchildren while the children are compared.
///
/// The keys are plain data, so moving them costs no reference counting, even in a debug build.
final class VirtualTimeQueue: @unchecked Sendable {
    /// Where the heap starts: index 0 of the heap is `storage + 3` (see the type's comment).
    private var keys: UnsafeMutablePointer<VirtualTimeKey>?
    /// Keys that fit before the buffer must grow.
    private var capacity = 0
    /// Keys in the heap.
    private var heapCount = 0

    /// The run (see the type's comment): keys pushed at the scheduler's `now`, in `(time,
    /// sequence)` order, at `run[runStart..<runEnd]`. Plain data, like the heap's.
    private var run: UnsafeMutablePointer<VirtualTimeKey>?
    private var runCapacity = 0
    private var runStart = 0
    private var runEnd = 0

    /// Keys in the heap and in the run.
    var count: Int { heapCount &+ (runEnd &- runStart) }

    var isEmpty: Bool { count == 0 }

    deinit {
        release()
        releaseRun()
    }

    /// The earliest key: the earlier of the run's head and the heap's root, by `order`.
    /// - Complexity: O(1).
    @inline(__always)
    func first(order: some VirtualTimeOrder) -> VirtualTimeKey? {
        if runStart == runEnd { return heapCount == 0 ? nil : keys![0] }
        let head = run![runStart]
        guard heapCount > 0 else { return head }
        let root = keys![0]
        return head.precedes(root, order) ? head : root
    }

    /// Adds `key` to the heap. - Complexity: O(log n).
    func push(_ key: VirtualTimeKey, order: some VirtualTimeOrder) {
        pushOntoHeap(key, order: order)
    }

    /// Adds `key` to the run. - Complexity: O(1) amortised.
    ///
    /// `key` must come after every key in the run: due no earlier than the last, with a higher
    /// sequence number. A key due at the scheduler's `now` with a new sequence number always
    /// does, as `now` never moves backwards and sequence numbers only grow; that is the only
    /// key the scheduler pushes here.
    @inline(__always)
    func pushOntoRun(_ key: VirtualTimeKey) {
        appendToRun(key)
    }

    /// Appends `key` to the run, growing (or compacting) its buffer if need be.
    @inline(__always)
    private func appendToRun(_ key: VirtualTimeKey) {
        if runEnd == runCapacity { makeRoomInRun() }
        run![runEnd] = key
        runEnd &+= 1
    }

    /// Moves the run to the buffer's start if it has room there, else doubles the buffer.
    private func makeRoomInRun() {
        let length = runEnd &- runStart
        if let run, runStart > 0, length <= runCapacity / 2 {
            run.update(from: run + runStart, count: length)
        } else {
            let grown = max(16, 2 * runCapacity)
            let storage = UnsafeMutablePointer<VirtualTimeKey>.allocate(capacity: grown)
            if let run {
                storage.initialize(from: run + runStart, count: length)
                run.deallocate()
            }
            run = storage
            runCapacity = grown
        }
        runStart = 0
        runEnd = length
    }

    private func releaseRun() {
        run?.deallocate()
        run = nil
        runCapacity = 0
        runStart = 0
        runEnd = 0
    }

    @inline(__always)
    private func pushOntoHeap(_ key: VirtualTimeKey, order: some VirtualTimeOrder) {
        var count = heapCount
        if count == capacity { grow() }
        let keys = keys!
        var child = count
        count += 1
        heapCount = count
        while child > 0 {
            let parent = (child - 1) >> 2
            guard key.precedes(keys[parent], order) else { break }
            keys[child] = keys[parent]
            child = parent
        }
        keys[child] = key
    }

    /// Removes and returns the earliest key. - Complexity: O(1) from the run, O(log n) from the heap.
    @discardableResult
    @inline(__always)
    func popFirst(order: some VirtualTimeOrder) -> VirtualTimeKey? {
        if runStart != runEnd {
            let head = run![runStart]
            if heapCount == 0 || head.precedes(keys![0], order) {
                runStart &+= 1
                if runStart == runEnd {
                    runStart = 0
                    runEnd = 0
                } else {
                    // The next to pop, most likely: have its entry loaded, as the heap does.
                    order.prefetch(run![runStart].slot)
                }
                return head
            }
        }
        return popHeap(order: order)
    }

    /// Removes and returns the heap's root. - Complexity: O(log n).
    private func popHeap(order: some VirtualTimeOrder) -> VirtualTimeKey? {
        guard heapCount > 0, let keys else { return nil }
        let first = keys[0]
        let count = heapCount &- 1
        heapCount = count
        guard count > 0 else { return first }
        let last = keys[count]
        // Beyond what the L2 cache holds (32k keys, 512 KB), each level down is a cache miss.
        let isLarge = count > 1 << 15
        // Down the smallest children to a leaf, leaving a hole...
        var hole = 0
        var child = 1
        while child < count {
            if isLarge {
                // The next level's line depends on which child wins: start loading all four
                // candidates' children now (they are contiguous), so the winner's is on its way.
                let grandchild = child &* 4 &+ 1
                if grandchild < count {
                    let line = UnsafeRawPointer(keys + grandchild)
                    schedulers_prefetch(line)
                    schedulers_prefetch(line + 64)
                    schedulers_prefetch(line + 128)
                    schedulers_prefetch(line + 192)
                }
            }
            let smallest = smallestChild(from: child, count: count, keys, order)
            // The root's smallest child is (almost always) the next to pop: have its entry
            // loaded while the rest of this sift runs, rather than when the driver asks for it.
            if hole == 0 { order.prefetch(keys[smallest].slot) }
            keys[hole] = keys[smallest]
            hole = smallest
            child = hole &* 4 &+ 1
        }
        // ...then up from there, to where `last` belongs.
        while hole > 0 {
            let parent = (hole &- 1) >> 2
            guard last.precedes(keys[parent], order) else { break }
            keys[hole] = keys[parent]
            hole = parent
        }
        keys[hole] = last
        return first
    }

    /// Removes the keys matching `isExcluded`, then restores heap order.
    /// - Complexity: O(n).
    func removeAll(where isExcluded: (VirtualTimeKey) -> Bool, order: some VirtualTimeOrder) {
        if let run {
            // In place, in order: what is left of a run is still a run.
            var kept = 0
            for index in runStart..<runEnd where !isExcluded(run[index]) {
                run[kept] = run[index]
                kept += 1
            }
            runStart = 0
            runEnd = kept
        }
        guard let keys else { return }
        var kept = 0
        for index in 0..<heapCount where !isExcluded(keys[index]) {
            keys[kept] = keys[index]
            kept += 1
        }
        heapCount = kept
        guard kept > 1 else { return }
        for index in stride(from: (kept - 2) >> 2, through: 0, by: -1) {
            siftDown(index, keys, order)
        }
    }

    /// Empties the queue and frees its buffers.
    func removeAll() {
        release()
        releaseRun()
        heapCount = 0
        capacity = 0
    }

    /// The index of the smallest of the children from `child` on (up to four, as many as exist).
    @inline(__always)
    private func smallestChild(
        from child: Int, count: Int, _ keys: UnsafeMutablePointer<VirtualTimeKey>, _ order: some VirtualTimeOrder
    ) -> Int {
        if child &+ 3 < count {
            // All four: two independent pairs, then their winners.
            let left = keys[child &+ 1].precedes(keys[child], order) ? child &+ 1 : child
            let right = keys[child &+ 3].precedes(keys[child &+ 2], order) ? child &+ 3 : child &+ 2
            return keys[right].precedes(keys[left], order) ? right : left
        }
        var smallest = child
        var index = child &+ 1
        while index < count {
            if keys[index].precedes(keys[smallest], order) { smallest = index }
            index &+= 1
        }
        return smallest
    }

    /// Moves the key at `start` down to where it belongs (for `removeAll(where:order:)`).
    private func siftDown(_ start: Int, _ keys: UnsafeMutablePointer<VirtualTimeKey>, _ order: some VirtualTimeOrder) {
        let key = keys[start]
        var parent = start
        while true {
            let child = 4 * parent + 1
            guard child < heapCount else { break }
            let smallest = smallestChild(from: child, count: heapCount, keys, order)
            guard keys[smallest].precedes(key, order) else { break }
            keys[parent] = keys[smallest]
            parent = smallest
        }
        keys[parent] = key
    }

    /// Doubles the buffer (16 keys' worth at first), 64-byte aligned with the root at index 3.
    private func grow() {
        let lineKeys = 64 / MemoryLayout<VirtualTimeKey>.stride
        let slots = max(4 * lineKeys, 2 * (capacity + lineKeys - 1))
        let storage = UnsafeMutableRawPointer.allocate(byteCount: slots * MemoryLayout<VirtualTimeKey>.stride, alignment: 64)
            .bindMemory(to: VirtualTimeKey.self, capacity: slots)
        let grown = storage + (lineKeys - 1)
        if let keys {
            grown.initialize(from: keys, count: heapCount)
            release()
        }
        keys = grown
        capacity = slots - (lineKeys - 1)
    }

    private func release() {
        guard let keys else { return }
        let lineKeys = 64 / MemoryLayout<VirtualTimeKey>.stride
        UnsafeMutableRawPointer(keys - (lineKeys - 1)).deallocate()
        self.keys = nil
    }

    #if DEBUG
    /// Debug-only check that every parent precedes its children, that the run is in order, and
    /// of the layout.
    func checkInvariants(order: some VirtualTimeOrder) {
        precondition(MemoryLayout<VirtualTimeKey>.stride == 16, "VirtualTimeQueue: a key is no longer 16 bytes")
        precondition(runStart <= runEnd && runEnd <= runCapacity, "VirtualTimeQueue: the run's bounds are broken")
        if let run {
            for index in (runStart &+ 1)..<max(runEnd, runStart &+ 1) {
                precondition(run[index - 1].precedes(run[index], order), "VirtualTimeQueue: the run is out of order at \(index)")
            }
        }
        guard let keys else { return }
        precondition(Int(bitPattern: keys + 1) % 64 == 0, "VirtualTimeQueue: the root's children do not start a cache line")
        for index in 1..<max(heapCount, 1) {
            precondition(!keys[index].precedes(keys[(index - 1) >> 2], order), "VirtualTimeQueue: heap order broken at \(index)")
        }
    }
    #endif
}

/// What the queue needs from where the actions live (``VirtualActionSlots``): the exact order of
/// two actions whose keys' ``VirtualTimeKey/coarseTime``s are equal (by time, then sequence
/// number), and a hint that an action is about to be popped.
protocol VirtualTimeOrder {
    /// Whether the action at `slot` comes before the one at `other`.
    func precedes(_ slot: UInt32, _ other: UInt32) -> Bool

    /// The action at `slot` will most likely be the next one popped: start loading what the
    /// driver will read of it. Only a hint; it changes nothing.
    func prefetch(_ slot: UInt32)
}

/// A heap key: plain data, 16 bytes, so that four fill a cache line (see ``VirtualTimeQueue``).
struct VirtualTimeKey: Sendable {
    /// ``VirtualTime/coarse`` of the action's due time: comparing two of these orders the keys,
    /// unless they are equal.
    var coarseTime: UInt64
    /// Where the action sits in ``VirtualActionSlots``, with its exact time and sequence number.
    var slot: UInt32
    /// Kept here so that popping a one-shot action reads nothing but its slot's entry.
    var isRepeating: Bool

    @inline(__always)
    init(time: VirtualTime, slot: UInt32, isRepeating: Bool) {
        coarseTime = time.coarse
        self.slot = slot
        self.isRepeating = isRepeating
    }

    @inline(__always)
    func precedes(_ other: VirtualTimeKey, _ order: some VirtualTimeOrder) -> Bool {
        // Different summaries decide, in one comparison the compiler can make a conditional move;
        // equal ones (equal times, in practice) ask for the exact order.
        if _slowPath(coarseTime == other.coarseTime) { return order.precedes(slot, other.slot) }
        return coarseTime < other.coarseTime
    }
}
