/// Where a ``TestScheduler``'s pending actions live, one per slot, while their keys move through
/// the ``VirtualTimeQueue``. Not thread-safe: kept under the scheduler core's lock.
///
/// Laid out for the pop, which at a million pending actions is memory-bound: popping a one-shot
/// action reads and clears its closure, 16 bytes in `actions`, and touches nothing else at
/// random (not the action's disposable, not `info`). A closure of nil marks an action that was
/// disposed, or has run, or whose slot is free. Everything else about a slot sits in `info`,
/// read only to schedule, dispose, or repeat.
///
/// A slot is reused once free, so a disposable names its action by slot *and* sequence number
/// (unique per scheduler): a stale disposable, whose action has run and whose slot now holds
/// another, finds a different sequence there and leaves the new occupant alone.
struct VirtualActionSlots: Sendable {
    typealias Action = @Sendable () -> Void

    struct Info: Sendable {
        /// The occupant's sequence number: who owns the slot (see the type's comment).
        var sequence: UInt64
        /// Seconds between runs; 0 for a one-shot action.
        var interval: Double
        /// The key is in the queue. Kept for repeating actions, which are out of it while they run.
        var isQueued: Bool
    }

    /// A closure kept in a struct: an array of bare closures stores them in their generic
    /// representation, which costs a reabstraction thunk (an allocation) going in and another
    /// coming out (measured: 3 allocations per action instead of 1).
    struct Stored {
        var action: Action?
    }

    private var actions: [Stored] = []
    private(set) var info: [Info] = []
    private var vacant: [UInt32] = []

    /// Slots in use (occupied, or waiting in the queue to be skipped).
    var occupiedCount: Int { actions.count - vacant.count }

    /// Puts `action` in a free slot (a new one if none is free) and returns that slot.
    mutating func occupy(_ action: @escaping Action, sequence: UInt64, interval: Double) -> UInt32 {
        let info = Info(sequence: sequence, interval: interval, isQueued: true)
        if let slot = vacant.popLast() {
            actions[Int(slot)] = Stored(action: action)
            self.info[Int(slot)] = info
            return slot
        }
        precondition(actions.count < Int(UInt32.max), "TestScheduler: more than 2^32 actions pending")
        actions.append(Stored(action: action))
        self.info.append(info)
        return UInt32(actions.count - 1)
    }

    /// The closure at `slot` (nil if it was disposed, has run, or the slot is free).
    @inline(__always)
    func action(at slot: UInt32) -> Action? {
        actions[Int(slot)].action
    }

    /// Clears the closure at `slot` and returns it, to be run or released outside the lock.
    @inline(__always)
    mutating func takeAction(at slot: UInt32) -> Action? {
        actions[Int(slot)].action.take()
    }

    /// Whether `slot` holds the action with this sequence number (it may have been disposed).
    func isOwned(_ slot: UInt32, by sequence: UInt64) -> Bool {
        Int(slot) < info.count && info[Int(slot)].sequence == sequence
    }

    func interval(at slot: UInt32) -> Double {
        info[Int(slot)].interval
    }

    func isQueued(_ slot: UInt32) -> Bool {
        info[Int(slot)].isQueued
    }

    mutating func setQueued(_ slot: UInt32, _ isQueued: Bool) {
        info[Int(slot)].isQueued = isQueued
    }

    /// Frees `slot` for reuse. Its closure must have been taken already.
    mutating func vacate(_ slot: UInt32) {
        vacant.append(slot)
    }

    /// Empties every slot and hands back the closures that were still there, to be released
    /// outside the lock.
    mutating func removeAll() -> [Action] {
        defer {
            actions = []
            info = []
            vacant = []
        }
        return actions.compactMap(\.action)
    }
}
