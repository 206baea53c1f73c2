import CurrentSchedulerSlot

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A capturing ``TestScheduler``'s virtual clock, published for C: the readings of the real
/// clocks on a thread while it runs the scheduler's work (WorldClockSlot.h).
///
/// Why: code under test reads the real clocks (`ContinuousClock.now`, `Date()`,
/// `DispatchTime.now()`) and sleeps on them with deadlines made from those readings. Inside a
/// virtual world those readings must be virtual for the code to see the time it slept, and for
/// a sleep's deadline to be a virtual time (RealClockSleepInterception.swift) instead of one
/// recovered from real readings. On Linux all of them read the C library's `clock_gettime`
/// through the dynamic symbol table (Platform notes), so a test binary that links
/// SchedulersTestSupport defines it and answers from the slot this type fills; Schedulers itself
/// reads no clock through it and defines no C library function.
///
/// The scheduler publishes its `now` here each time it moves (``VirtualTimeCore``), and sets
/// the calling thread's slot around each action and job it runs (``TestScheduler/runInWorld(_:)``).
/// Inside the world, `CLOCK_REALTIME` reads the scheduler's `now` (so `Date()` is
/// ``TestScheduler/now``), and `CLOCK_MONOTONIC` and `CLOCK_BOOTTIME` read their real value at
/// the moment the scheduler began capturing plus the virtual time since, so their instants move
/// exactly as virtual time moves.
final class WorldClock: Sendable {
    /// Freed when its last reference goes: the scheduler's core holds one (this object), and
    /// each Dispatch block the world has in flight one (``WorldDispatchWork``).
    /// `nonisolated(unsafe)` because it is written only through atomics (`now`, the counts) or
    /// once, before it is shared.
    nonisolated(unsafe) let pointer: UnsafeMutablePointer<schedulers_world_clock>

    /// The Dispatch work the world has in flight, and its deferred Dispatch deadlines.
    let dispatchWork: WorldDispatchWork

    init(now: VirtualTime, scheduler: TestScheduler) {
        pointer = .allocate(capacity: 1)
        dispatchWork = WorldDispatchWork(scheduler: scheduler)
        // Real readings, even where this runs inside another world (a capture nested in one).
        let nanoseconds = now.clampedNanoseconds
        let (monotonic, boottime) = withRealReadings { (Self.reading(CLOCK_MONOTONIC), Self.reading(CLOCK_BOOTTIME)) }
        var clock = schedulers_world_clock()
        clock.now = nanoseconds
        clock.start = nanoseconds
        clock.monotonic_base = monotonic
        clock.boottime_base = boottime
        clock.references = 1
        clock.owner = Unmanaged.passRetained(dispatchWork).toOpaque()
        clock.drained = { owner in Unmanaged<WorldDispatchWork>.fromOpaque(owner!).takeUnretainedValue().drained() }
        clock.schedule_at = { owner, due, fire, context in
            let work = Unmanaged<WorldDispatchWork>.fromOpaque(owner!).takeUnretainedValue()
            return work.schedule(at: VirtualTime(attoseconds: Int128(due) * 1_000_000_000), fire: fire, context: context) ? 1 : 0
        }
        clock.destroy = { clock in
            Unmanaged<WorldDispatchWork>.fromOpaque(clock.pointee.owner!).release()
            clock.deinitialize(count: 1)
            clock.deallocate()
        }
        pointer.initialize(to: clock)
    }

    deinit {
        // Blocks still in flight keep it until they finish.
        schedulers_world_clock_release(pointer)
    }

    /// Publishes the scheduler's new `now`.
    @inline(__always)
    func publish(_ now: VirtualTime) {
        schedulers_world_clock_publish(pointer, now.clampedNanoseconds)
    }

    /// The virtual time an instant of a real clock read in the world of `clock` stands for:
    /// `attoseconds` since the clock's epoch (a `ContinuousClock` instant is a `CLOCK_BOOTTIME`
    /// reading, a `SuspendingClock` one `CLOCK_MONOTONIC`).
    static func virtualTime(
        ofRealInstant attoseconds: Int128, continuous: Bool, on clock: UnsafeMutablePointer<schedulers_world_clock>
    ) -> VirtualTime {
        let base = Int128(continuous ? clock.pointee.boottime_base : clock.pointee.monotonic_base)
        return VirtualTime(attoseconds: Int128(clock.pointee.start) * 1_000_000_000 + (attoseconds - base * 1_000_000_000))
    }

    private static func reading(_ clock: clockid_t) -> Int64 {
        var value = timespec()
        _ = clock_gettime(clock, &value)
        return Int64(value.tv_sec) * 1_000_000_000 + Int64(value.tv_nsec)
    }
}

extension VirtualTime {
    /// Whole nanoseconds since the reference date, rounded down, clamped to `Int64`'s range
    /// (about ±292 years): what a clock reading inside a world reports.
    var clampedNanoseconds: Int64 {
        if isExact {
            let (quotient, remainder) = raw.quotientAndRemainder(dividingBy: 1_000_000_000)
            return Int64(clamping: remainder < 0 ? quotient - 1 : quotient)
        }
        return raw < 0 ? .min : .max
    }
}

/// Runs `body` with the calling thread's clock readings real: for the package's own real-time
/// needs (how long a block has been in flight) on a thread that may be running a world's work.
@inline(__always)
func withRealReadings<R>(_ body: () throws -> R) rethrows -> R {
    let outer = schedulers_world_clock_get()
    if outer == nil { return try body() }
    schedulers_world_clock_set(nil)
    defer { schedulers_world_clock_set(outer) }
    return try body()
}
