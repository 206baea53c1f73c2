@_spi(SchedulersInternal) import Disposables
import CurrentSchedulerSlot
import Synchronization

/// Where a deadline on a real clock (`ContinuousClock`, `SuspendingClock`) falls in a
/// ``TestScheduler``'s virtual time, so that a captured task's real-clock sleep wakes as if it
/// had slept on the scheduler's clock (RealClockSleepInterception.swift).
///
/// Why a mapping is needed at all: most sleeps reach the scheduler as an absolute instant only.
/// `Task.sleep(for:)` and `Clock.sleep(for:)` are inlined into the caller, which reads the real
/// clock's `now` and adds the duration there; the executor never sees the duration. So it is
/// recovered, and chains of deadlines are recognised, by two rules, in this order:
///
/// 1. **A chain.** A deadline that is a whole number of milliseconds (0 included) after a
///    deadline this scheduler has mapped before, on the same clock, falls that many
///    milliseconds after the virtual time that deadline was mapped to. Code that sleeps until
///    `last + interval` (swift-async-algorithms' `AsyncTimerSequence`) keeps its beat: 1, 2,
///    3 s, not a delay measured from the real `now` of each sleep, which real time barely
///    moves while virtual time runs ahead (1, 3, 6 s).
/// 2. **A fresh deadline** (`now + d`, computed by the caller a moment ago). The caller read the
///    real `now` in the stretch of work that makes the sleep: one job of the task, and the jobs
///    its hops resume (into the nonisolated `sleep(until:)`, off the main actor), each a
///    *segment* of the stretch, running from its job's start to the hop's entry into the
///    global-enqueue hook (`schedulers_stretch_hop_enters`, before the hook does anything else), the last one to
///    the sleep's arrival here. The time between segments, spent in the scheduler's own code
///    (a lock another test holds, the queue) or waiting for a drive, is not the caller's. The
///    reading lies in one segment, and that segment ends microseconds after it (the call into
///    `sleep(until:)` hops at once; `Task.sleep(nanoseconds:)` arrives here at once), so its
///    end lies a whole millisecond, `d`, before the deadline, less those microseconds, however
///    long the segment took before the reading: the segment whose end comes closest after a
///    whole millisecond, within its window, gives `d` (``delay(_:_:_:arrival:)``). It is
///    exact unless the thread lost the processor between the reading and the segment's end,
///    or another segment's end falls closer to a whole millisecond by chance (one whose window
///    holds one: the thread lost the processor in it, a millisecond or more). A duration below
///    a millisecond, or between two, wakes at the next whole millisecond. Code that runs
///    outside a job (the body of a synchronous capture, a `Task.immediate` up to its first
///    suspension there) has no stretch: its sleep counts from its arrival here, rounded up.
///
/// Rule 1 could take a fresh deadline for a chained one if the caller's `now` happened to be a
/// whole number of milliseconds after a remembered deadline, to the nanosecond: one chance in a
/// million per remembered deadline. Only the latest ``capacity`` deadlines per clock are kept.
final class RealClockTimeline: Sendable {
    /// The real clocks a sleep can be mapped from.
    enum RealClock: Sendable {
        case continuous
        case suspending
    }

    /// What a sleep's arrival reads, on the thread that made it: both real clocks, and the
    /// stretch of work running there (`RealClockStretch.h`).
    struct Readings: Sendable {
        let now: schedulers_moment
        let stretch: schedulers_stretch

        init() {
            now = schedulers_real_clocks_now()
            stretch = schedulers_stretch_get()
        }

        func real(_ clock: RealClock) -> Int128 { Self.real(now, clock) }

        /// `moment` on `clock`, in attoseconds since the clock's epoch.
        static func real(_ moment: schedulers_moment, _ clock: RealClock) -> Int128 {
            Int128(clock == .continuous ? moment.continuous : moment.suspending) * 1_000_000_000
        }
    }

    /// How many mapped deadlines are remembered per clock, for rule 1.
    static let capacity = 16

    /// How many queued hops of running tasks are remembered until their jobs run.
    static let hopCapacity = 64

    /// One millisecond, in attoseconds: the grid of rule 2.
    private static let grid: Int128 = 1_000_000_000_000_000

    private struct Mapped: Sendable {
        /// The deadline, as attoseconds since the clock's epoch.
        let real: Int128
        let virtual: VirtualTime
    }

    private struct State: Sendable {
        var continuous: [Mapped] = []
        var suspending: [Mapped] = []
        /// The hops that running tasks made and that were queued (not parked: a hop off the
        /// main actor's stand-in, say), by job address, with the stretch they continue: the
        /// hop's job goes on with it, however late and on whichever thread it runs.
        var hops: [(job: UInt, stretch: schedulers_stretch)] = []

        subscript(clock: RealClock) -> [Mapped] {
            get { clock == .continuous ? continuous : suspending }
            set {
                if clock == .continuous { continuous = newValue } else { suspending = newValue }
            }
        }
    }

    private let state = Lock(State())
    /// `state.hops.count`, so that a job begins without the lock while no hop is queued.
    private let queuedHops = Atomic<Int>(0)

    /// The job at address `job` begins to run on this thread: a new stretch of work, or the one
    /// its task's hop continues (``hopMade(_:parked:)``). Call ``stretchEnds()`` once the job
    /// returns.
    func stretchBegins(for job: UInt) {
        guard queuedHops.load(ordering: .relaxed) > 0, let queued = queuedHop(job) else {
            schedulers_stretch_begin(job, nil)
            return
        }
        withUnsafePointer(to: queued) { schedulers_stretch_begin(job, $0) }
    }

    /// The stretch a queued hop of `job` continues, taken out of the table.
    private func queuedHop(_ job: UInt) -> schedulers_stretch? {
        state.withLock { state in
            guard let index = state.hops.lastIndex(where: { $0.job == job }) else { return nil }
            queuedHops.subtract(1, ordering: .relaxed)
            return state.hops.remove(at: index).stretch
        }
    }

    /// Whether stretches are kept at all. Not in a binary that links SchedulersTestSupport,
    /// whose real clocks read virtual time on a thread running a world's work (WorldClock.swift):
    /// there every job a scheduler runs runs in its world, a sleep made there has its exact
    /// virtual deadline already (RealClockSleepInterception.swift), and a sleep made outside
    /// the world (a captured task on an actor) has no stretch of this scheduler's to read
    /// either. Set once, before any world runs: the same answer all through a process.
    @inline(__always)
    static var isKeepingStretches: Bool { schedulers_virtual_readings_are_installed() == 0 }

    /// The job ``stretchBegins(for:)`` began returned: the hop it parked goes on with its
    /// stretch, else the stretch it interrupted (a job that drives the scheduler runs jobs
    /// inside its own), if any, goes on.
    func stretchEnds() {
        schedulers_stretch_end()
    }

    /// `job` is being enqueued: if it is the job running on this thread (its task hops), its
    /// segment ends (where the hop entered the global-enqueue hook, else now), and the job goes
    /// on with the stretch when it runs: at once if it was `parked` (kept on this thread),
    /// else whenever it runs.
    func hopMade(_ job: UInt, parked: Bool) {
        if parked {
            Self.parkedHopMade(job)
            return
        }
        var hop = schedulers_stretch()
        guard schedulers_stretch_hop_made(job, 0, &hop) != 0 else { return }
        state.withLock { state in
            if state.hops.count == Self.hopCapacity {
                state.hops.removeFirst()
            } else {
                queuedHops.add(1, ordering: .relaxed)
            }
            state.hops.append((job, hop))
        }
    }

    /// A hop of the running task, parked on this thread: see ``hopMade(_:parked:)``.
    @inline(__always)
    static func parkedHopMade(_ job: UInt) {
        _ = schedulers_stretch_hop_made(job, 1, nil)
    }

    /// The virtual time at which a sleep until `deadline` on `clock` wakes, `deadline` being
    /// attoseconds since that clock's epoch, `readings` taken at the interception, on the
    /// thread that made the sleep, and `virtualNow` the scheduler's `now`.
    func virtualTime(
        of deadline: Int128, on clock: RealClock, readings: Readings, virtualNow: VirtualTime
    ) -> VirtualTime {
        state.withLock { state in
            var mapped = state[clock]
            var time: VirtualTime?
            for earlier in mapped.reversed() {
                let gap = deadline - earlier.real
                if gap >= 0, gap % Self.grid == 0 {
                    time = earlier.virtual + VirtualTime(attoseconds: gap)
                    break
                }
            }
            if time == nil {
                // Rule 2: a reading just before a hop, else the shortest whole millisecond in
                // the newest window that holds one (the windows of later segments lie lower).
                let arrival = deadline - readings.real(clock)
                var delay = Self.roundedUp(arrival)
                if readings.stretch.job != 0, readings.stretch.count > 0 {
                    delay = Self.delay(deadline, clock, readings.stretch, arrival: arrival)
                }
                time = virtualNow + VirtualTime(attoseconds: max(delay, 0))
            }
            let result = max(time ?? virtualNow, virtualNow)
            if mapped.count == Self.capacity { mapped.removeFirst() }
            mapped.append(Mapped(real: deadline, virtual: result))
            state[clock] = mapped
            return result
        }
    }

    /// Rule 2's delay for `deadline` on `clock`, from the segments of the stretch that made the
    /// sleep (the last one ending at its arrival), `arrival` being the deadline minus the real
    /// time of the arrival.
    ///
    /// The caller reads `now` in the code of one segment, and the segment ends within
    /// microseconds of the reading: `Clock.sleep(for:)` reads it and calls the nonisolated
    /// `sleep(until:)` at once, where a captured task hops; `Task.sleep(nanoseconds:)` reads it
    /// and arrives here. So that segment's end lies a whole millisecond before the deadline,
    /// less those microseconds, however long the segment took before the reading. The end of
    /// any other segment whose window holds a whole millisecond lies anywhere in the
    /// millisecond before one (the thread lost the processor, or the window is that long): the
    /// segment whose end comes closest after a whole millisecond is taken, the newest on a tie.
    /// No window holds one (a duration below a millisecond, or between two): the arrival,
    /// rounded up.
    private static func delay(_ deadline: Int128, _ clock: RealClock, _ stretch: schedulers_stretch, arrival: Int128) -> Int128 {
        var closest: (delay: Int128, rounding: Int128)?
        let count = Int(min(stretch.count, UInt32(SCHEDULERS_STRETCH_SEGMENTS)))
        withUnsafeBytes(of: stretch.segments) { bytes in
            let segments = bytes.bindMemory(to: schedulers_segment.self)
            for segment in segments[0..<count].reversed() {
                let remaining = segment.end.continuous == 0 ? arrival : deadline - Readings.real(segment.end, clock)
                let delay = roundedUp(remaining)
                let rounding = delay - remaining
                guard delay <= deadline - Readings.real(segment.start, clock), rounding < closest?.rounding ?? grid else { continue }
                closest = (delay, rounding)
            }
        }
        return closest?.delay ?? roundedUp(arrival)
    }

    /// `value` rounded up to the grid.
    private static func roundedUp(_ value: Int128) -> Int128 {
        let remainder = value % grid
        return remainder > 0 ? value - remainder + grid : value - remainder
    }
}
