import CurrentSchedulerSlot

/// Where a ``TestScheduler``'s pending actions live, one per slot, while their keys move through
/// the ``VirtualTimeQueue``. Not thread-safe: kept under the scheduler core's lock.
///
/// Laid out for the pop, which at a million pending actions is memory-bound: popping a one-shot
/// action reads its due time and takes its closure, one 32-byte ``Entry``,
/// and touches nothing else at random (not the action's disposable, not `sequences`, which the
/// queue reads only to order equal times). A closure of nil marks an action that was disposed,
/// or has run, or whose slot is free. A one-shot action needs 8 bytes more, its sequence
/// number; only repeating actions, which are rare, keep more, in `repeating`. Every byte counts
/// twice at a million actions: in cache misses, and in page faults as the arrays grow.
///
/// A slot is reused once free, so a disposable names its action by slot *and* sequence number
/// (unique per scheduler): a stale disposable, whose action has run and whose slot now holds
/// another, finds a different sequence there and leaves the new occupant alone.
struct VirtualActionSlots: Sendable {
    typealias Action = @Sendable () -> Void

    /// A closure kept in a struct: an array of bare closures stores them in their generic
    /// representation, which costs a reabstraction thunk (an allocation) going in and another
    /// coming out (measured: 3 allocations per action instead of 1).
    struct Entry {
        var action: Action?
        /// When it is due: exact, while its key in the queue holds only a summary. While the
        /// slot is free, the next free slot instead (``VirtualActionSlots/freeLink(to:)``).
        var time: VirtualTime
    }

    struct Repeating: Sendable {
        /// The time between runs.
        var interval: VirtualTime
        /// The key is in the queue: a repeating action is out of it while it runs.
        var isQueued: Bool
    }

    private var entries: [Entry] = []
    /// The occupant's sequence number, by slot: who owns the slot (see the type's comment).
    private var sequences: [UInt64] = []
    /// What a repeating action needs besides, by slot.
    private var repeating: [UInt32: Repeating] = [:]
    /// The most recently vacated slot, or `UInt32.max` if none is free. The free slots form a
    /// list through their entries' `time`, each holding the next one: no array of its own to
    /// grow, and a freed slot is reused while its entry is still in the cache.
    private var firstVacant = UInt32.max

    /// Puts `action`, due at `time`, in a free slot (a new one if none is free) and returns that slot.
    ///
    /// - Parameter interval: the time between runs, or nil for a one-shot action.
    mutating func occupy(_ action: @escaping Action, at time: VirtualTime, sequence: UInt64, interval: VirtualTime?) -> UInt32 {
        let slot: UInt32
        if firstVacant != .max {
            slot = firstVacant
            firstVacant = Self.nextFree(after: entries[Int(slot)].time)
            entries[Int(slot)] = Entry(action: action, time: time)
            sequences[Int(slot)] = sequence
        } else {
            // `UInt32.max` itself marks the end of the free list.
            if entries.count >= Int(UInt32.max) {
                badInput("TestScheduler: more than \(UInt32.max) actions pending at once")
            }
            slot = UInt32(entries.count)
            entries.append(Entry(action: action, time: time))
            sequences.append(sequence)
        }
        if let interval {
            repeating[slot] = Repeating(interval: interval, isQueued: true)
        }
        return slot
    }

    /// The closure at `slot` (nil if it was disposed, has run, or the slot is free).
    @inline(__always)
    func action(at slot: UInt32) -> Action? {
        entries[Int(slot)].action
    }

    /// When the action at `slot` is due. The slot must be occupied.
    @inline(__always)
    func time(at slot: UInt32) -> VirtualTime {
        let time = entries[Int(slot)].time
        assert(!Self.isFreeLink(time), "VirtualActionSlots: reading the time of a free slot")
        return time
    }

    /// The sequence number of the action at `slot`.
    func sequence(at slot: UInt32) -> UInt64 {
        sequences[Int(slot)]
    }

    /// Starts loading the entry at `slot` into the cache: the queue asks for the next action's
    /// while it sifts (at 100k pending, reading it cold was most of `popNext`'s time).
    @inline(__always)
    func prefetch(_ slot: UInt32) {
        entries.withUnsafeBufferPointer { entries in
            guard Int(slot) < entries.count else { return }
            schedulers_prefetch(entries.baseAddress! + Int(slot))
        }
    }

    /// Moves the due time of the repeating action at `slot`, before its key goes back in the queue.
    mutating func setTime(_ slot: UInt32, _ time: VirtualTime) {
        entries[Int(slot)].time = time
    }

    /// Clears the closure at `slot` and returns it, to be run or released outside the lock.
    @inline(__always)
    mutating func takeAction(at slot: UInt32) -> Action? {
        entries[Int(slot)].action.take()
    }

    /// Whether `slot` holds the action with this sequence number (it may have been disposed).
    func isOwned(_ slot: UInt32, by sequence: UInt64) -> Bool {
        Int(slot) < sequences.count && sequences[Int(slot)] == sequence
    }

    /// The interval of the repeating action at `slot`.
    func interval(at slot: UInt32) -> VirtualTime {
        repeating[slot]!.interval
    }

    /// How many repeating actions are live (not disposed). - Complexity: O(repeating actions).
    var liveRepeatingCount: Int {
        repeating.keys.reduce(0) { count, slot in entries[Int(slot)].action == nil ? count : count + 1 }
    }

    /// Whether the occupied `slot`'s key is in the queue: always for a one-shot action.
    func isQueued(_ slot: UInt32) -> Bool {
        repeating.isEmpty ? true : repeating[slot]?.isQueued ?? true
    }

    /// Records whether the repeating action at `slot` is in the queue.
    mutating func setQueued(_ slot: UInt32, _ isQueued: Bool) {
        repeating[slot]!.isQueued = isQueued
    }

    /// Frees `slot` for reuse. Its closure must have been taken already, and its key must be out
    /// of the queue (nothing may read its time any more).
    mutating func vacate(_ slot: UInt32, isRepeating: Bool) {
        assert(!Self.isFreeLink(entries[Int(slot)].time), "VirtualActionSlots: vacating a slot that is already free")
        assert(entries[Int(slot)].action == nil, "VirtualActionSlots: vacating a slot that still holds its closure")
        if isRepeating { repeating[slot] = nil }
        entries[Int(slot)].time = Self.freeLink(to: firstVacant)
        firstVacant = slot
    }

    /// Empties every slot and hands back the closures that were still there, to be released
    /// outside the lock.
    mutating func removeAll() -> [Action] {
        defer {
            entries = []
            sequences = []
            repeating = [:]
            firstVacant = .max
        }
        return entries.compactMap(\.action)
    }
}

extension VirtualActionSlots {
    /// A free slot's link to the next free one, stored in its entry's `time`: far below any
    /// time a ``VirtualTime`` can hold (whose magnitude stays under 2^124), so that reading it
    /// as a time by mistake is caught by the assertions, not taken for a moment near 2001.
    static func freeLink(to slot: UInt32) -> VirtualTime {
        VirtualTime(raw: Int128.min + Int128(slot))
    }

    static func nextFree(after link: VirtualTime) -> UInt32 {
        assert(isFreeLink(link), "VirtualActionSlots: a free slot without a link")
        return UInt32(truncatingIfNeeded: link.raw - Int128.min)
    }

    static func isFreeLink(_ time: VirtualTime) -> Bool {
        time.raw <= Int128.min + Int128(UInt32.max)
    }
}

extension VirtualActionSlots: VirtualTimeOrder {
    /// By due time, then by sequence number: the scheduler's order (see ``VirtualTimeQueue``).
    /// Inlined: with many actions at one time (a burst of `schedule {}`), every comparison in
    /// the heap comes here.
    @inline(__always)
    func precedes(_ slot: UInt32, _ other: UInt32) -> Bool {
        let time = entries[Int(slot)].time, otherTime = entries[Int(other)].time
        assert(!Self.isFreeLink(time) && !Self.isFreeLink(otherTime), "VirtualActionSlots: ordering a free slot")
        if time != otherTime { return time < otherTime }
        return sequences[Int(slot)] < sequences[Int(other)]
    }
}
