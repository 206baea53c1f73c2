import Foundation
@_spi(SchedulersInternal) import Disposables
import CurrentSchedulerSlot
import Synchronization

/// The state a ``TestScheduler`` shares with its scheduled actions. Pending actions point here
/// rather than at the scheduler, so that they do not keep it alive.
///
/// Nothing here points at an action's disposable (``VirtualAction``): the queue holds plain keys
/// and the closures sit in ``VirtualActionSlots``, so running a million actions in time order
/// touches no object allocated in schedule order, and a disposable nobody keeps is freed at once.
final class VirtualTimeCore: Sendable {
    struct State {
        var now: VirtualTime {
            // Published for the clock readings of the world's threads (WorldClock.swift).
            didSet { worldClock?.publish(now) }
        }
        /// Made when the scheduler first captures (``beginWorldClock()``).
        var worldClock: WorldClock?
        let queue = VirtualTimeQueue()
        var slots = VirtualActionSlots()
        var nextSequence: UInt64 = 0
        /// Actions that are scheduled, not disposed, and will still run.
        var liveCount = 0
        /// Disposed actions still sitting in `queue`, waiting to be skipped.
        var disposedInQueue = 0
        /// The drivers of asynchronous captures, parked until work is due at `now`
        /// (``CapturedBodyDriver``); `enqueue` wakes them. More than one only while captures of
        /// this scheduler nest (an inner capture's driver is the outer body).
        var parkedDrivers: [CheckedContinuation<Void, Never>] = []
        /// Jobs that yielded (YieldedJob.swift), waiting for the current moment to run out.
        /// Counted in `liveCount`.
        var heldYields: [@Sendable () -> Void] = []
        /// The disposable `enqueue` handed out last, retained here so that the next `enqueue`
        /// can rename it if nobody else refers to it by then (VirtualAction.swift, "Reused").
        /// Unmanaged, so that looking at it takes no reference of its own. It refers to this
        /// core: `discardPending` (the scheduler's deinit) lets go of it, ending the cycle.
        var spare: Unmanaged<VirtualAction>?
        /// Spares in a row that were still referenced when the next action came: a caller
        /// that keeps its disposables (a reactive operator adding each to a composite) would
        /// pay a retain and a release per `schedule` for a spare it never frees. From
        /// ``spareMissLimit`` on, only every 64th `schedule` keeps one, to notice a change.
        var spareMisses: UInt8 = 0
        /// The drive epoch each task's latest run in the world ended in, by task address
        /// (OutsideArrivals.swift): empty, and free, until captured tasks run.
        var waitingSince: [UInt: UInt64] = [:]
    }

    /// ``State/worldClock``'s C state, for the threads running this world's work to read
    /// without the lock; 0 before the scheduler captures.
    private let worldClockAddress = Atomic<UInt>(0)

    /// The world clock the threads running this scheduler's work read (WorldClock.swift), or
    /// nil before it first captured.
    @inline(__always)
    var worldClockPointer: UnsafeMutablePointer<schedulers_world_clock>? {
        UnsafeMutablePointer(bitPattern: worldClockAddress.load(ordering: .acquiring))
    }

    /// Makes the world clock, once, at the current `now`.
    func beginWorldClock(for scheduler: TestScheduler) -> WorldClock {
        state.withLock { state in
            if let clock = state.worldClock { return clock }
            let clock = WorldClock(now: state.now, scheduler: scheduler)
            state.worldClock = clock
            worldClockAddress.store(UInt(bitPattern: clock.pointer), ordering: .releasing)
            return clock
        }
    }

    /// See ``State/spareMisses``.
    static var spareMissLimit: UInt8 { 4 }

    /// What one drive remembers between its steps about the held yields of the moment it is at.
    ///
    /// A drive releases the held yields whenever the current moment has nothing else due, and
    /// again after they ran, as long as something other than the yields themselves ran in the
    /// round before: so a task that yields twice, or a hundred times, after its sleep finishes
    /// in the drive that wakes it, and two tasks that yield in turn both finish. A round in
    /// which nothing but the released yields ran is a round of waiting: after
    /// ``yieldOnlyRoundLimit`` of them in a row the drive stops releasing at this moment, so a
    /// task that yields in a loop until a later time lets time move on.
    struct DriveMoment {
        /// The moment the counts are for; nil before the first release.
        var time: VirtualTime?
        /// Rounds in a row, at `time`, in which nothing but the released yields ran.
        var yieldOnlyRounds = 0
        /// How many yields the last release queued.
        var released = 0
        /// Actions run since the last release.
        var ranSinceRelease = 0
    }

    /// How many rounds in a row with nothing but yields a drive runs at one moment before it
    /// lets time move on (see ``DriveMoment``).
    static let yieldOnlyRoundLimit = 1_000

    /// What `popNext` tells the driver besides the action: when it runs, and for a repeating
    /// one, what `requeue` needs to put it back. (The closure comes back as the result: kept in
    /// here, it cost a retain and a release per action.)
    struct Popped {
        var time = VirtualTime.zero
        var slot: UInt32 = 0
        var sequence: UInt64 = 0
        var isRepeating = false
    }

    let state: Lock<State>
    /// The dates ``TestScheduler/now`` reports where a date's time does not round back to it.
    /// Made on the first date that needs one (most schedulers never do), so that a scheduler
    /// costs no allocation for it; 0 until then, released in `deinit`.
    private let dateReadingsAddress = Atomic<UInt>(0)

    /// The table, or nil while no date has needed one.
    var dateReadings: DateReadings? {
        let address = dateReadingsAddress.load(ordering: .acquiring)
        guard address != 0 else { return nil }
        return Unmanaged<DateReadings>.fromOpaque(UnsafeRawPointer(bitPattern: address)!).takeUnretainedValue()
    }

    /// The table, made if need be.
    func makeDateReadings() -> DateReadings {
        if let existing = dateReadings { return existing }
        let made = Unmanaged.passRetained(DateReadings())
        let (exchanged, found) = dateReadingsAddress.compareExchange(
            expected: 0, desired: UInt(bitPattern: made.toOpaque()), ordering: .acquiringAndReleasing)
        if exchanged { return made.takeUnretainedValue() }
        made.release()
        return Unmanaged<DateReadings>.fromOpaque(UnsafeRawPointer(bitPattern: found)!).takeUnretainedValue()
    }

    deinit {
        let address = dateReadingsAddress.load(ordering: .acquiring)
        if address != 0 { Unmanaged<DateReadings>.fromOpaque(UnsafeRawPointer(bitPattern: address)!).release() }
    }

    init(now: VirtualTime) {
        state = Lock(State(now: now))
    }

    /// The virtual time: where the scheduler was driven to, or the running action's due time.
    var now: VirtualTime {
        state.withLock { $0.now }
    }

    /// How many times virtual time has moved, or a drive the test asked for has begun: a task
    /// whose work arrives from outside in the epoch it began waiting in could not have been
    /// looked for too early (OutsideArrivals.swift). Moves of time count under the lock. Stored
    /// here, not in an object of its own: a scheduler allocates nothing more for it.
    private let driveEpoch = Atomic<UInt64>(0)

    /// A drive the test asked for begins (or time moves: under the lock).
    func advanceDriveEpoch() { driveEpoch.add(1, ordering: .acquiringAndReleasing) }

    /// The task at `address` ran in the world until now: from here on it waits.
    func taskRan(at address: UInt) {
        state.withLock { state in state.waitingSince[address] = driveEpoch.load(ordering: .acquiring) }
    }

    /// Queues `action`, due now, for a job of the task at `address` that arrives from outside,
    /// and tells, under the same lock, whether the task waited through a drive or a move of
    /// time (nil if it never ran in this world).
    func enqueueArrival(action: @escaping @Sendable () -> Void, task address: UInt) -> Bool? {
        var parked: [CheckedContinuation<Void, Never>] = []
        let waited = state.withLock { state -> Bool? in
            _ = insert(&state, interval: nil, action: action, due: { $0 }, parked: &parked)
            return state.waitingSince[address].map { $0 != driveEpoch.load(ordering: .acquiring) }
        }
        for driver in parked { driver.resume() }
        return waited
    }

    /// Set by the scheduler's deinit: from then on the main actor's stand-in, which outlives
    /// the scheduler, releases the jobs it is handed instead of queuing them here.
    private let closed = Atomic<Bool>(false)

    var isClosed: Bool { closed.load(ordering: .acquiring) }

    func close() { closed.store(true, ordering: .releasing) }

    /// The warnings this scheduler has printed (``VirtualTimeCore/OnceWarning`` bits).
    private let warned = Atomic<UInt8>(0)

    /// The warnings a scheduler prints at most once.
    enum OnceWarning: UInt8 {
        case drivenOffTheMainActor = 1
        case synchronousMainActorUnavailable = 2
        case runStoppedAtRepeatingActions = 4
        case waitingForTime = 8
        case arrivedFromOutside = 16
        case dispatchWorkUnfinished = 32
        case bodyCannotGoOn = 64
    }

    /// Whether `warning` is due: true the first time only.
    func warnOnce(_ warning: OnceWarning) -> Bool {
        warned.bitwiseOr(warning.rawValue, ordering: .relaxed).oldValue & warning.rawValue == 0
    }

    /// Whether `warning` has been given (so that a later warning need not name its cause again).
    func hasWarned(_ warning: OnceWarning) -> Bool {
        warned.load(ordering: .relaxed) & warning.rawValue != 0
    }

    /// Queues `action` and returns its disposable: the one handed out last, renamed, if nobody
    /// else refers to it any more, else a new one (VirtualAction.swift, "Reused").
    ///
    /// - Parameters:
    ///   - interval: the time between runs, or nil for a one-shot action.
    ///   - due: when it is due, given `now` (a past or infinite time is clamped here).
    ///
    /// Inlined, so that `due` is too: called through a specialisation instead, its captures were
    /// passed retained, an atomic increment and decrement per `schedule` (callgrind).
    @inline(__always)
    func enqueue(
        interval: VirtualTime?, action: @escaping @Sendable () -> Void, due: (_ now: VirtualTime) -> VirtualTime
    ) -> VirtualAction {
        // Taken out under the lock, resumed after it (a captured local, as in `popNext`).
        var parked: [CheckedContinuation<Void, Never>] = []
        var replaced: Unmanaged<VirtualAction>?
        let handle = state.withLock { state in
            let (slot, sequence) = insert(&state, interval: interval, action: action, due: due, parked: &parked)
            if let spare = state.spare, schedulers_is_solely_referenced(spare.toOpaque()) {
                state.spareMisses = 0
                spare._withUnsafeGuaranteedRef { $0.rename(slot: slot, sequence: sequence) }
                // The caller's reference, taken before the lock goes: until then another
                // `enqueue` would find the spare solely referenced and rename it again.
                return spare.retain()
            }
            return makeDisposable(&state, slot: slot, sequence: sequence, replacing: &replaced)
        }
        // Released here, outside the lock: a disposable's deinit releases this core.
        replaced?.release()
        for driver in parked { driver.resume() }
        return handle.takeRetainedValue()
    }

    /// A new disposable for the action at `slot`, with the caller's reference, kept as the
    /// spare unless the last ``spareMissLimit`` spares were all still referenced (see
    /// ``State/spareMisses``). The spare it replaces comes back in `replaced`, to be released
    /// outside the lock. Out of line: `enqueue` is inlined at every `schedule`.
    private func makeDisposable(
        _ state: inout State, slot: UInt32, sequence: UInt64, replacing replaced: inout Unmanaged<VirtualAction>?
    ) -> Unmanaged<VirtualAction> {
        let made = Unmanaged.passRetained(VirtualAction(core: self, slot: slot, sequence: sequence))
        if state.spare != nil, state.spareMisses < Self.spareMissLimit { state.spareMisses += 1 }
        replaced = state.spare
        guard state.spareMisses < Self.spareMissLimit || sequence & 63 == 0 else {
            state.spare = nil
            return made
        }
        state.spare = made
        return made.retain()
    }

    /// Queues `action` without a disposable, for the scheduler's own work that nothing disposes
    /// (a captured job, a yield released, a real-clock sleep's wake-up).
    func enqueueWithoutDisposable(action: @escaping @Sendable () -> Void, due: (_ now: VirtualTime) -> VirtualTime) {
        var parked: [CheckedContinuation<Void, Never>] = []
        state.withLock { state in
            _ = insert(&state, interval: nil, action: action, due: due, parked: &parked)
        }
        for driver in parked { driver.resume() }
    }

    /// Puts `action` in a slot and its key in the queue, under the lock; hands back the parked
    /// drivers to wake if it is due now, and the action's name for its disposable.
    @inline(__always)
    private func insert(
        _ state: inout State, interval: VirtualTime?, action: @escaping @Sendable () -> Void,
        due: (_ now: VirtualTime) -> VirtualTime, parked: inout [CheckedContinuation<Void, Never>]
    ) -> (slot: UInt32, sequence: UInt64) {
        let sequence = state.nextSequence
        state.nextSequence &+= 1
        state.liveCount += 1
        // Forward-only time: a past date is due now (callers turn NaN into now). An infinite
        // date becomes the largest finite one, so that running it never makes `now` infinite.
        let time = max(min(due(state.now), .greatestFinite), state.now)
        let slot = state.slots.occupy(action, at: time, sequence: sequence, interval: interval)
        let key = VirtualTimeKey(time: time, slot: slot, isRepeating: interval != nil)
        // Due now, with the newest sequence number: after everything in the run (a burst of
        // `schedule {}`, a moment's jobs), so it joins it without a comparison.
        if time == state.now {
            state.queue.pushOntoRun(key)
        } else {
            state.queue.push(key, order: state.slots)
        }
        if !state.parkedDrivers.isEmpty, time <= state.now { swap(&parked, &state.parkedDrivers) }
        return (slot, sequence)
    }

    /// The time `date` (not NaN) denotes when virtual time is `now` (VirtualTime+Dates.swift).
    /// Where that time's own date is not `date`, ``TestScheduler/now`` will read `date` there.
    /// Call it under the lock (as `enqueue`'s `due` does) or while driving, so that `now`
    /// cannot move meanwhile.
    func resolve(_ date: Date, against now: VirtualTime) -> VirtualTime {
        let reading = dateReadings?.date(at: now)?.timeIntervalSinceReferenceDate
        let (time, keepsDate) = VirtualTime.resolving(
            seconds: date.timeIntervalSinceReferenceDate, against: now, reading: reading)
        if keepsDate && time > now {
            makeDateReadings().record(date, at: time, now: now)
        }
        return time
    }

    /// Puts a repeating action back, one interval after it last ran, unless it was disposed.
    /// A repeat whose next time is not finite ends: it is released and no longer pending.
    func requeue(slot: UInt32, sequence: UInt64, ranAt time: VirtualTime) {
        // The closure of a repeat that ends leaves the lock here, to be released outside it.
        var ended: (@Sendable () -> Void)?
        state.withLock { state in
            guard state.slots.isOwned(slot, by: sequence) else { return }
            guard state.slots.action(at: slot) != nil else {
                // Disposed while it ran: nothing refers to the slot any more.
                state.slots.vacate(slot, isRepeating: true)
                return
            }
            // An interval below an attosecond (a `Double` of 1e-20 s), or one that vanishes in
            // `Double` rounding beyond the exact range, must still move on, or `advance` would
            // run this action forever without reaching its target.
            var next = time + state.slots.interval(at: slot)
            if next <= time { next = time.successor }
            guard next <= .greatestFinite else {
                // Past the largest finite time (the interval overflowed a `Double`): it would
                // be clamped back to the time it just ran at, and run there forever.
                ended = state.slots.takeAction(at: slot)
                state.slots.vacate(slot, isRepeating: true)
                state.liveCount -= 1
                return
            }
            // An action that drove the scheduler on may have moved `now` past `next`.
            next = max(next, state.now)
            state.slots.setQueued(slot, true)
            state.slots.setTime(slot, next)
            state.queue.push(VirtualTimeKey(time: next, slot: slot, isRepeating: true), order: state.slots)
        }
        _ = ended
    }

    /// Removes the earliest live action due by `limit` (any, if nil), moving `now` to its date.
    /// Disposed actions met on the way are dropped. `releasingYields` false (while Dispatch work
    /// of the world is in flight, which may still bring work due now) keeps held yields held.
    func popNext(
        through limit: VirtualTime?, _ popped: inout Popped, moment: inout DriveMoment, releasingYields: Bool = true
    ) -> (@Sendable () -> Void)? {
        // The closure leaves the lock through a captured local, never as `withLock`'s generic
        // result: that would reabstract it, two allocations per action (measured).
        var action: (@Sendable () -> Void)?
        state.withLock { state in
            while true {
                guard let first = state.queue.first(order: state.slots) else {
                    // Nothing queued: yields held at this moment get their one release.
                    guard releasingYields, Self.releaseHeldYields(&state, &moment) else { return }
                    continue
                }
                guard state.slots.action(at: first.slot) != nil else {
                    state.queue.popFirst(order: state.slots)
                    state.slots.vacate(first.slot, isRepeating: first.isRepeating)
                    state.disposedInQueue -= 1
                    continue
                }
                let time = state.slots.time(at: first.slot)
                // The moment has nothing else due: the yields held in it run before time moves.
                if time > state.now, releasingYields, !state.heldYields.isEmpty, Self.releaseHeldYields(&state, &moment) {
                    continue
                }
                if let limit, time > limit { return }
                state.queue.popFirst(order: state.slots)
                if time > state.now {
                    state.now = time
                    advanceDriveEpoch()
                }
                moment.ranSinceRelease &+= 1
                if first.isRepeating {
                    // It keeps its slot (and its place among equal times) while it runs.
                    state.slots.setQueued(first.slot, false)
                    action = state.slots.action(at: first.slot)
                    let sequence = state.slots.sequence(at: first.slot)
                    popped = Popped(time: state.now, slot: first.slot, sequence: sequence, isRepeating: true)
                } else {
                    // A one-shot is done once popped: it no longer counts, its slot is free, and
                    // it is released by the caller right after running.
                    state.liveCount -= 1
                    action = state.slots.takeAction(at: first.slot)
                    // No sequence: only `requeue` needs it, and reading it would cost a cache miss.
                    popped = Popped(time: state.now, slot: first.slot, isRepeating: false)
                    state.slots.vacate(first.slot, isRepeating: false)
                }
                return
            }
        }
        return action.take()
    }

    /// The time of the earliest live action (disposed ones met on the way are dropped), or nil
    /// when nothing is pending.
    func earliestPendingTime() -> VirtualTime? {
        state.withLock { state in Self.dropDisposedHead(&state) }
    }

    /// Ends a drive through `limit`, under the lock, unless an action due by then came
    /// meanwhile (work arriving from outside): then the caller runs it first. Ending, moves
    /// `now` to `limit` if that is later and finite, under the same lock, so that an arrival
    /// queued before time moves is run by the drive, and one queued after it sees the move in
    /// the drive epoch (OutsideArrivals.swift).
    /// - Returns: whether the drive ended.
    func finishDrive(through limit: VirtualTime) -> Bool {
        state.withLock { state in
            if let first = Self.dropDisposedHead(&state), first <= limit { return false }
            if limit.isFinite, limit > state.now {
                state.now = limit
                advanceDriveEpoch()
            }
            return true
        }
    }

    /// Parks `driver` until work is due at `now` (``unpark()`` or `enqueue` resumes it).
    /// - Parameters:
    ///   - isDone: Whether the driver has nothing to wait for.
    ///   - canMove: Whether the driver would move time on by itself to pending work (an
    ///     automatic advance, a sleeping body) if it looked again: asked only when work is
    ///     pending at a later time.
    /// - Returns: false, without parking, when work is due already, `isDone` says so, or work
    ///   is pending and `canMove` says so (checked under the lock, so a wake-up between the
    ///   driver's last look and the parking is not lost: the last Dispatch block of the world
    ///   finishing, say, which lets time move, unparks under this lock).
    func park(
        _ driver: CheckedContinuation<Void, Never>, unless isDone: () -> Bool, orIfPendingWhile canMove: () -> Bool = { false }
    ) -> Bool {
        state.withLock { state in
            if isDone() { return false }
            if let first = Self.dropDisposedHead(&state) {
                if first <= state.now || canMove() { return false }
            }
            state.parkedDrivers.append(driver)
            return true
        }
    }

    /// Wakes the parked driver, if any.
    func unpark() {
        var parked: [CheckedContinuation<Void, Never>] = []
        state.withLock { swap(&parked, &$0.parkedDrivers) }
        for driver in parked { driver.resume() }
    }

    /// Whether a driver is parked (for the warning that it waits for time).
    var hasParkedDriver: Bool {
        state.withLock { !$0.parkedDrivers.isEmpty }
    }

    /// Drops disposed actions from the head of the queue; returns the first live one's time.
    private static func dropDisposedHead(_ state: inout State) -> VirtualTime? {
        while let first = state.queue.first(order: state.slots) {
            guard state.slots.action(at: first.slot) == nil else { return state.slots.time(at: first.slot) }
            state.queue.popFirst(order: state.slots)
            state.slots.vacate(first.slot, isRepeating: first.isRepeating)
            state.disposedInQueue -= 1
        }
        return nil
    }

    /// Called by `VirtualAction.dispose()`: returns the closure, to be released outside the lock.
    /// Does nothing if the action has run or was disposed, even if its slot has a new occupant.
    func dispose(slot: UInt32, sequence: UInt64) -> (@Sendable () -> Void)? {
        var action: (@Sendable () -> Void)?
        state.withLock { state in
            guard state.slots.isOwned(slot, by: sequence), let taken = state.slots.takeAction(at: slot) else { return }
            action = taken
            state.liveCount -= 1
            // A repeating action that is running is out of the queue: `requeue` frees its slot.
            if state.slots.isQueued(slot) {
                state.disposedInQueue += 1
                compactIfMostlyDisposed(&state)
            }
        }
        return action
    }

    /// Holds a job that yielded until the current moment has nothing else due (YieldedJob.swift).
    func holdYield(_ run: @escaping @Sendable () -> Void) {
        var parked: [CheckedContinuation<Void, Never>] = []
        state.withLock { state in
            state.liveCount += 1
            state.heldYields.append(run)
            swap(&parked, &state.parkedDrivers)
        }
        for driver in parked { driver.resume() }
    }

    /// Queues the held yields at `now`, unless this drive has run ``yieldOnlyRoundLimit``
    /// rounds of nothing but yields at this moment (see ``DriveMoment``).
    /// - Returns: whether any were released.
    private static func releaseHeldYields(_ state: inout State, _ moment: inout DriveMoment) -> Bool {
        guard !state.heldYields.isEmpty else { return false }
        if moment.time != state.now {
            moment = DriveMoment(time: state.now)
        } else {
            moment.yieldOnlyRounds = moment.ranSinceRelease > moment.released ? 0 : moment.yieldOnlyRounds + 1
            guard moment.yieldOnlyRounds < yieldOnlyRoundLimit else { return false }
        }
        let held = state.heldYields
        state.heldYields.removeAll(keepingCapacity: true)
        moment.released = held.count
        moment.ranSinceRelease = 0
        for run in held {
            // Counted in `liveCount` since they were held.
            let sequence = state.nextSequence
            state.nextSequence &+= 1
            let slot = state.slots.occupy(run, at: state.now, sequence: sequence, interval: nil)
            state.queue.pushOntoRun(VirtualTimeKey(time: state.now, slot: slot, isRepeating: false))
        }
        return true
    }

    /// Releases everything pending without running it (the scheduler's deinit).
    func discardPending() {
        let discarded = state.withLock { state in
            state.queue.removeAll()
            state.liveCount = 0
            state.disposedInQueue = 0
            let held = state.heldYields
            state.heldYields = []
            let spare = state.spare
            state.spare = nil
            return (state.slots.removeAll(), held, spare)
        }
        // Released here, outside the lock: a closure's captures may run arbitrary deinit code.
        discarded.2?.release()
        _ = discarded
    }

    /// Lazy cancellation leaves disposed actions in the heap; once they are most of it, sweep
    /// them so memory stays proportional to what is pending.
    private func compactIfMostlyDisposed(_ state: inout State) {
        guard state.disposedInQueue > 1024, state.disposedInQueue > state.queue.count / 2 else { return }
        var vacated: [VirtualTimeKey] = []
        do {
            // A copy, as the closure may not capture `state` while the queue is edited; it ends
            // here, so that `vacate` below does not copy the arrays it shares.
            let slots = state.slots
            state.queue.removeAll(where: { key in
                guard slots.action(at: key.slot) == nil else { return false }
                vacated.append(key)
                return true
            }, order: slots)
        }
        for key in vacated { state.slots.vacate(key.slot, isRepeating: key.isRepeating) }
        state.disposedInQueue = 0
    }
}
