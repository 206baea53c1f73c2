@_spi(SchedulersInternal) import Disposables
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

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
/// 2. **A fresh deadline** (`now + d`, computed by the caller a moment ago): the delay is
///    recovered to a whole millisecond, and the deadline falls that long after the virtual
///    `now`. The deadline minus the real `now` read here is `d` less the real time since the
///    caller read it: microseconds of work (measured on 2 loaded cores: p50 4.7 µs, p99
///    13 µs), so rounded *up* to a whole millisecond it is `d`, unless the thread lost the
///    processor in between (about 1 sleep in 600 there; the kernel takes it for whole ticks,
///    1 ms and more), or other work ran in between (a caller that hops to sleep reads `now`
///    in an earlier job, and the jobs queued before its hop run first). So as each of its
///    actions begins, the scheduler notes the real time and the thread's CPU time, and here
///    looks at the latest ``actionCapacity`` actions: the delay is the deadline minus the real
///    `now`, plus the time the thread was descheduled since one of those actions began,
///    rounded up to a whole millisecond by no more than the CPU time since that action began
///    (the reading followed that start, and only work came after it). It tries none added
///    against the action running now first, then each start from the newest; if none fits,
///    none added. It misses when a wrong candidate fits by chance (a descheduling lasts whole
///    ticks give or take microseconds, so a wrong one lands near a whole millisecond more
///    often than chance would say) or the thread was descheduled on both sides of the
///    reading. Measured on 2 cores at load average 11-13 (`yes` and two builds beside):
///    22 of 20,000 sleeps of random whole milliseconds woke 1 ms or more off (2 early, 20
///    late), and 28 of 5,000 runs of three equal sleeps had one off; at load average 5-8 the
///    rounding alone missed 1 sleep in 600. A duration below a millisecond, or between two,
///    wakes at the next whole millisecond; a deadline in the past is due now.
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

    /// Readings taken together: the real clocks and the calling thread's CPU time, in
    /// attoseconds since each clock's epoch.
    struct Readings: Sendable {
        let thread: UInt
        let continuous: Int128
        let suspending: Int128
        let cpu: Int128

        init() {
            thread = currentThreadIdentity()
            continuous = ContinuousClock().systemEpoch.duration(to: .now).attoseconds
            suspending = SuspendingClock().systemEpoch.duration(to: .now).attoseconds
            var spec = timespec()
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
            cpu = (Int128(spec.tv_sec) * 1_000_000_000 + Int128(spec.tv_nsec)) * 1_000_000_000
        }

        func real(_ clock: RealClock) -> Int128 { clock == .continuous ? continuous : suspending }
    }

    /// How many mapped deadlines are remembered per clock, for rule 1.
    static let capacity = 16

    /// How many action starts are remembered, for rule 2: the one running the sleep, and the
    /// one before it (where a caller that hopped to sleep read `now`).
    static let actionCapacity = 8

    /// What reading three clocks can take between two readings, in attoseconds (2 µs).
    static let slack: Int128 = 2_000_000_000_000

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
        /// The latest actions' starts, oldest first.
        var actions: [Readings] = []

        subscript(clock: RealClock) -> [Mapped] {
            get { clock == .continuous ? continuous : suspending }
            set {
                if clock == .continuous { continuous = newValue } else { suspending = newValue }
            }
        }
    }

    private let state = Lock(State())

    /// Notes that an action of the scheduler begins on this thread (for rule 2).
    func actionBegins() {
        let readings = Readings()
        state.withLock { state in
            if state.actions.count == Self.actionCapacity { state.actions.removeFirst() }
            state.actions.append(readings)
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
                let sinceStarts = state.actions.reversed().filter { $0.thread == readings.thread }.map { start in
                    let cpu = readings.cpu - start.cpu
                    return (descheduled: readings.real(clock) - start.real(clock) - cpu, cpu: cpu)
                }
                let delay = Self.recoveredDelay(deadline - readings.real(clock), sinceStarts: sinceStarts)
                time = virtualNow + VirtualTime(attoseconds: delay)
            }
            let result = max(time ?? virtualNow, virtualNow)
            if mapped.count == Self.capacity { mapped.removeFirst() }
            mapped.append(Mapped(real: deadline, virtual: result))
            state[clock] = mapped
            return result
        }
    }

    /// Rule 2: the delay, a whole number of milliseconds (zero for a deadline in the past),
    /// from `remaining` (the deadline minus the real `now` at the interception) and, for each
    /// of the latest actions that began on this thread (newest first), the real time it was
    /// descheduled since then and the CPU time it ran.
    static func recoveredDelay(
        _ remaining: Int128, sinceStarts: [(descheduled: Int128, cpu: Int128)]
    ) -> Int128 {
        // Read in the action running now, with nothing but its work since: microseconds.
        let (delay, rounding) = roundedUp(remaining)
        if rounding <= (sinceStarts.first?.cpu ?? 0) + slack { return max(delay, 0) }
        // Else the newest start the caller's reading can follow: the time the thread was
        // descheduled since it (in whole scheduler ticks, 1 ms and more) came after the
        // reading, and what is left is the CPU time of the work since then.
        for since in sinceStarts where since.descheduled >= grid / 2 {
            let (candidate, rounding) = roundedUp(remaining + since.descheduled)
            if rounding <= since.cpu + slack { return max(candidate, 0) }
        }
        // None fits (the thread was descheduled on both sides of the reading): as if it was
        // not descheduled after it.
        return max(delay, 0)
    }

    /// `value` rounded up to the grid, and by how much.
    private static func roundedUp(_ value: Int128) -> (Int128, Int128) {
        let remainder = value % grid
        let up = remainder > 0 ? value - remainder + grid : value - remainder
        return (up, up - value)
    }
}
