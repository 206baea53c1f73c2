@_spi(SchedulersInternal) import Disposables
import CurrentSchedulerSlot

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
///    global-enqueue hook (``hopEnters()``, before the hook takes any lock), the last one to
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

    /// The real clocks read together, in attoseconds since each clock's epoch, and the thread.
    struct Readings: Sendable {
        let thread: UInt
        let continuous: Int128
        let suspending: Int128

        init() {
            thread = currentThreadIdentity()
            continuous = ContinuousClock().systemEpoch.duration(to: .now).attoseconds
            suspending = SuspendingClock().systemEpoch.duration(to: .now).attoseconds
        }

        func real(_ clock: RealClock) -> Int128 { clock == .continuous ? continuous : suspending }
    }

    /// How many mapped deadlines are remembered per clock, for rule 1.
    static let capacity = 16

    /// How many hops of running tasks are remembered until their jobs run.
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
        /// The stretch of work running on each thread.
        var stretches: [Stretch] = []
        /// The hops that running tasks made, by job address, with the segments of the stretch
        /// they continue: the hop's job goes on with it, however late it runs.
        var hops: [(job: UInt, segments: Segments)] = []

        subscript(clock: RealClock) -> [Mapped] {
            get { clock == .continuous ? continuous : suspending }
            set {
                if clock == .continuous { continuous = newValue } else { suspending = newValue }
            }
        }
    }

    /// One moment on both real clocks, in attoseconds since each clock's epoch.
    struct Moment: Sendable {
        let continuous: Int128
        let suspending: Int128

        func real(_ clock: RealClock) -> Int128 { clock == .continuous ? continuous : suspending }
    }

    /// One segment of a stretch (rule 2).
    struct Segment: Sendable {
        let start: Moment
        /// Nil while the segment runs.
        var end: Moment?
    }

    /// A stretch of work on one thread (rule 2).
    struct Stretch: Sendable {
        let thread: UInt
        /// The address of the job running its last segment (its task's).
        let job: UInt
        /// Oldest first; the last one runs.
        var segments: Segments
    }

    /// The latest four segments of a stretch, oldest first, held inline: a stretch begins with
    /// every job the scheduler runs, and must not cost an allocation. Four cover a sleep's
    /// path (`Task.sleep(for:)` from a closure: the job, then hops into the closure, into
    /// `sleep(until:)`, into the runtime's sleep), and the reading is in one of the last.
    struct Segments: Sendable {
        private var first: Segment?
        private var second: Segment?
        private var third: Segment?
        private var fourth: Segment?

        init(_ segment: Segment) {
            first = segment
        }

        /// Adds `segment` after the others, dropping the oldest if there are four.
        mutating func append(_ segment: Segment) {
            if second == nil {
                second = segment
            } else if third == nil {
                third = segment
            } else if fourth == nil {
                fourth = segment
            } else {
                (first, second, third, fourth) = (second, third, fourth, segment)
            }
        }

        /// Ends the last segment at `moment`.
        mutating func endLast(at moment: Moment) {
            if fourth != nil {
                fourth!.end = moment
            } else if third != nil {
                third!.end = moment
            } else if second != nil {
                second!.end = moment
            } else {
                first?.end = moment
            }
        }

        /// Calls `body` with each segment, newest first.
        func forEachNewestFirst(_ body: (Segment) -> Void) {
            if let fourth { body(fourth) }
            if let third { body(third) }
            if let second { body(second) }
            if let first { body(first) }
        }
    }

    private let state = Lock(State())

    /// The job at address `job` begins to run on this thread: a new stretch of work, or the one
    /// its task's hop continues (``hopMade(_:)``). Give the result back to ``stretchEnds(_:)``
    /// once the job returns.
    func stretchBegins(for job: UInt) -> Stretch? {
        let now = Readings()
        let segment = Segment(start: Moment(continuous: now.continuous, suspending: now.suspending))
        return state.withLock { state in
            var segments = Segments(segment)
            if !state.hops.isEmpty, let index = state.hops.lastIndex(where: { $0.job == job }) {
                segments = state.hops.remove(at: index).segments
                segments.append(segment)
            }
            let stretch = Stretch(thread: now.thread, job: job, segments: segments)
            if let index = state.stretches.firstIndex(where: { $0.thread == now.thread }) {
                let outer = state.stretches[index]
                state.stretches[index] = stretch
                return outer
            }
            state.stretches.append(stretch)
            return nil
        }
    }

    /// The job ``stretchBegins(for:)`` began returned: the stretch it interrupted (a job that
    /// drives the scheduler runs jobs inside its own), if any, goes on.
    func stretchEnds(_ outer: Stretch?) {
        let thread = currentThreadIdentity()
        state.withLock { state in
            guard let index = state.stretches.firstIndex(where: { $0.thread == thread }) else { return }
            if let outer { state.stretches[index] = outer } else { state.stretches.remove(at: index) }
        }
    }

    /// Notes, in the global-enqueue hook and before it takes any lock, that the task running on
    /// this thread hops: the end of its segment.
    static func hopEnters() {
        schedulers_hop_entry_set(
            Int64(truncatingIfNeeded: ContinuousClock().systemEpoch.duration(to: .now).attoseconds / 1_000_000_000),
            Int64(truncatingIfNeeded: SuspendingClock().systemEpoch.duration(to: .now).attoseconds / 1_000_000_000))
    }

    /// `job` is being enqueued: if it is the job running on this thread (its task hops), its
    /// segment ends (where ``hopEnters()`` noted it, else now), and the job goes on with the
    /// stretch when it runs.
    func hopMade(_ job: UInt) {
        let thread = currentThreadIdentity()
        let end: Moment
        let entered = schedulers_hop_entry_continuous_get()
        if entered != 0 {
            end = Moment(
                continuous: Int128(entered) * 1_000_000_000,
                suspending: Int128(schedulers_hop_entry_suspending_get()) * 1_000_000_000)
            schedulers_hop_entry_set(0, 0)
        } else {
            let now = Readings()
            end = Moment(continuous: now.continuous, suspending: now.suspending)
        }
        state.withLock { state in
            guard let index = state.stretches.firstIndex(where: { $0.thread == thread }), state.stretches[index].job == job else {
                return
            }
            var segments = state.stretches[index].segments
            segments.endLast(at: end)
            if state.hops.count == Self.hopCapacity { state.hops.removeFirst() }
            state.hops.append((job, segments))
        }
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
                if let stretch = state.stretches.first(where: { $0.thread == readings.thread }) {
                    delay = Self.delay(deadline, clock, stretch.segments, arrival: arrival)
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
    private static func delay(_ deadline: Int128, _ clock: RealClock, _ segments: Segments, arrival: Int128) -> Int128 {
        var closest: (delay: Int128, rounding: Int128)?
        segments.forEachNewestFirst { segment in
            let remaining = segment.end.map { deadline - $0.real(clock) } ?? arrival
            let delay = roundedUp(remaining)
            let rounding = delay - remaining
            guard delay <= deadline - segment.start.real(clock), rounding < closest?.rounding ?? grid else { return }
            closest = (delay, rounding)
        }
        return closest?.delay ?? roundedUp(arrival)
    }

    /// `value` rounded up to the grid.
    private static func roundedUp(_ value: Int128) -> Int128 {
        let remainder = value % grid
        return remainder > 0 ? value - remainder + grid : value - remainder
    }
}
