@_spi(SchedulersInternal) import Disposables
import Foundation

extension TestScheduler {
    /// The scheduler's virtual time as a `Clock`, for APIs that take one:
    /// `try await Task.sleep(for: .seconds(5), clock: scheduler.clock)`.
    ///
    /// The clock is a view that shares the scheduler's virtual time rather than the scheduler
    /// itself: its ``now`` is the scheduler's, and a sleep is an action scheduled at the
    /// deadline, which runs when the test steps or advances the scheduler.
    ///
    /// **Exact.** Virtual time is kept in whole attoseconds (`Duration`'s unit), not in a
    /// `Double`, so what the clock measures after `Duration` steps is exact, as with
    /// swift-clocks' `TestClock`: a thousand `advance(by: .milliseconds(1))` read exactly
    /// `.seconds(1)` on `duration(to:)`, and three chained 100 ms sleeps wake exactly at an
    /// advance of 0.3. A `Double` of seconds means the decimal it was written as (0.3 is
    /// 300 ms), so `Duration`s and `TimeInterval`s meet: sleeping `.milliseconds(300)` wakes in
    /// `advance(by: 0.3)`. Exact within ±2^62 s (146 billion years) of 2001-01-01; beyond, as
    /// exact as a `Double`. An instant made from a date (``Instant/init(date:)``) means what
    /// the date means to the scheduler (``TestScheduler``, "Dates"): sleeping until
    /// `Instant(date: scheduler.now.addingTimeInterval(x))` wakes in `advance(by: x)` for any
    /// `x` on a microsecond grid, from any start date. Instants have alignment 8, like
    /// `ContinuousClock.Instant`, so they can be kept in async code (see `VirtualTime`).
    ///
    /// The clock does not keep the scheduler alive. A sleep on the clock of a deinitialised
    /// scheduler throws `CancellationError`, as does a sleep whose scheduler is deinitialised
    /// while it waits.
    public struct Clock: _Concurrency.Clock {
        /// Swift's `Duration`: spans of virtual time, added exactly.
        public typealias Duration = Swift.Duration

        /// A moment of the scheduler's virtual time.
        public struct Instant: InstantProtocol {
            /// Swift's `Duration`.
            public typealias Duration = Swift.Duration

            /// The exact moment (see ``TestScheduler/Clock``): what comparisons and
            /// ``duration(to:)`` use. For an instant made from a date, the date's own value.
            let time: VirtualTime

            /// The date this instant was made from (``init(date:)``), or the date the scheduler
            /// reports at ``time`` (``TestScheduler/Clock/now``); nil for one made by arithmetic.
            /// Where the scheduler sleeps until or advances to the instant, it reads this date
            /// against its ``TestScheduler/now``, as it reads any date. (Laid out with alignment
            /// 8, like everything here users keep in async code: see ``VirtualTime``.)
            let madeFrom: Date?

            init(time: VirtualTime, madeFrom: Date? = nil) {
                self.time = time
                self.madeFrom = madeFrom
            }

            /// This instant as a date, comparable with ``TestScheduler/now``: the date it was
            /// made from, else the `Date` nearest to the exact instant. Setting it moves the
            /// instant to that date.
            public var date: Date {
                get { madeFrom ?? time.date }
                set { self = Instant(date: newValue) }
            }

            /// The instant at `date` of the scheduler's virtual time: where the scheduler uses
            /// it (``TestScheduler/Clock/sleep(until:tolerance:)``,
            /// ``TestScheduler/Clock/advance(to:isolation:)``), the moment at which
            /// `schedule(after: date)` would run then, read against the scheduler's exact
            /// ``TestScheduler/now`` (see ``TestScheduler``, "Dates"): so
            /// `Instant(date: scheduler.now.addingTimeInterval(x))` is reached by
            /// `advance(by: x)` for any `x` on a microsecond grid. Its ``date`` is `date` again.
            /// Comparisons and ``duration(to:)`` use the date's own value: a date written as
            /// whole nanoseconds means that decimal value (0.3 s is 300 ms exactly), any other
            /// its binary value, and an instant made from a date is equal to another at that value.
            ///
            /// - Parameter date: the date, as ``TestScheduler/now`` reports it. NaN reads as
            ///   the reference date (it has no place in time).
            public init(date: Date) {
                let seconds = date.timeIntervalSinceReferenceDate
                if seconds.isNaN {
                    self.init(time: .zero)
                } else {
                    self.init(time: VirtualTime(seconds: seconds), madeFrom: date)
                }
            }

            /// Equal when their exact moments are.
            public static func == (lhs: Instant, rhs: Instant) -> Bool {
                lhs.time == rhs.time
            }

            public func hash(into hasher: inout Hasher) {
                hasher.combine(time)
            }

            /// This instant moved by `duration`, exactly (within ±2^62 s of 2001; beyond, as
            /// exact as a `Double`). Saturates instead of trapping: a result beyond `Double`'s
            /// finite range stays at its largest (or smallest) finite value.
            ///
            /// - Parameter duration: How far to move (negative: back).
            /// - Returns: The moved instant.
            public func advanced(by duration: Duration) -> Instant {
                let moved = time + VirtualTime(duration)
                return Instant(time: min(max(moved, VirtualTime(raw: -VirtualTime.greatestFinite.raw)), .greatestFinite))
            }

            /// The span from this instant to `other`, exactly when both lie within ±2^62 s of
            /// 2001 (any two such instants are at most ``longestDuration`` apart). Saturates
            /// instead of trapping: a span longer than `Int64.max` seconds (after
            /// `advance(by: 1e300)`, say) is ``Instant/longestDuration`` (or its negation), the
            /// longest whose `components` can still be read.
            ///
            /// - Parameter other: The instant to measure to.
            /// - Returns: `other - self`, saturated.
            public func duration(to other: Instant) -> Duration {
                if time.isExact && other.time.isExact {
                    return Duration(attoseconds: other.time.raw - time.raw)
                }
                let seconds = other.time.seconds - time.seconds
                if seconds.isNaN { return .zero }
                if seconds >= Self.longestSeconds { return Self.longestDuration }
                if seconds <= -Self.longestSeconds { return .zero - Self.longestDuration }
                return .seconds(seconds)
            }

            /// The longest span ``duration(to:)`` returns: `Int64.max` seconds and just under
            /// one more. `Duration` itself reaches further, but its `components` (seconds as an
            /// `Int64`) would then trap.
            public static var longestDuration: Duration {
                Duration(secondsComponent: .max, attosecondsComponent: 999_999_999_999_999_999)
            }

            /// `Int64.max` as a `Double` (which rounds it up to 2^63): any span from there on
            /// saturates.
            private static var longestSeconds: Double { 9_223_372_036_854_775_808 }

            public static func < (lhs: Instant, rhs: Instant) -> Bool {
                lhs.time < rhs.time
            }
        }

        private let core: VirtualTimeCore
        /// Weak (a ``TestScheduler`` stores its pending work). A class rather than a `weak var`
        /// here, so that copying the clock, which operators do all the time, is a retain and
        /// not a weak-reference copy.
        let reference: SchedulerReference

        init(scheduler: TestScheduler) {
            core = scheduler.core
            reference = SchedulerReference(scheduler)
        }

        /// The scheduler's ``TestScheduler/now``, exactly. While an action or job runs, its due
        /// time. Its ``Instant/date`` is ``TestScheduler/now``, also at a time read from a date.
        public var now: Instant {
            let time = core.now
            return Instant(time: time, madeFrom: core.dateReadings?.date(at: time))
        }

        /// Zero: virtual time has no granularity.
        public var minimumResolution: Duration { .zero }

        /// Suspends until the scheduler's virtual time reaches `deadline`; a deadline at or before
        /// ``now`` returns at once, without waiting for a drive. `tolerance` is ignored.
        ///
        /// A task that sleeps here while running elsewhere than on the scheduler (neither
        /// preferring it nor captured by ``TestScheduler/withCapturedTasks(_:)``) makes the
        /// scheduler report a warning, once per scheduler, as `sleep(for:)` does.
        ///
        /// It runs in the caller's isolation (`nonisolated(nonsending)`): the wake-up is scheduled
        /// from the caller's own job before it suspends, so a caller isolated to an actor (the
        /// main actor) does not hop off it first, and its wake-up is due before work enqueued
        /// meanwhile.
        ///
        /// - Parameters:
        ///   - deadline: The virtual instant to wake at.
        ///   - tolerance: Ignored.
        /// - Throws: `CancellationError` as soon as the task is cancelled; the wake-up is
        ///   disposed. Also when the scheduler is (or becomes) deinitialised.
        nonisolated(nonsending)
        public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
            try await sleep(until: deadline, call: "clock.sleep(until:tolerance:)")
        }

        /// Suspends for `duration` of virtual time: `sleep(until: now.advanced(by: duration))`,
        /// `Clock`'s own `sleep(for:tolerance:)`, but run in the caller's isolation (as
        /// ``sleep(until:tolerance:)`` is), so that the wake-up is due where the caller asked for
        /// it even when the caller is isolated to an actor. `tolerance` is ignored.
        ///
        /// - Throws: `CancellationError`, as ``sleep(until:tolerance:)``.
        nonisolated(nonsending)
        public func sleep(for duration: Duration, tolerance: Duration? = nil) async throws {
            try await sleep(until: now.advanced(by: duration), call: "clock.sleep(for:tolerance:)")
        }

        /// The body of both sleeps; `call` names the one made, in a warning.
        nonisolated(nonsending)
        private func sleep(until deadline: Instant, call: String) async throws {
            // The scheduler is looked up inside `arm` and not kept in this frame, so a sleeping
            // task does not keep it alive. Gone: no wake-up, so `Sleeper` throws at once.
            var adoption: AdoptedWakeUp?
            if let scheduler = reference.scheduler as? TestScheduler {
                // Virtual time is already there: return without waiting for a drive, which a
                // test body awaiting this would never get (the contract's "sleep until now").
                if scheduler.hasReached(deadline) { return try Task.checkCancellation() }
                if DetachedSleepWarning.check(scheduler, isolation: #isolation, call: call) { adoption = AdoptedWakeUp(scheduler: scheduler) }
            }
            // At the exact instant: through a `Date` it could round past an `advance` target.
            // An instant made from a date is read against `now` when the wake-up is scheduled.
            try await Sleeper.sleep(adoption: adoption) { [reference] wake in
                guard let scheduler = reference.scheduler as? TestScheduler else { return nil }
                // The body of a capture lets time pass (CapturedBodyDriver.swift).
                return scheduler.schedule(at: deadline, scheduler.wakeUpOfBody(wake))
            }
        }
    }

    /// A `Clock` that reads and sleeps in this scheduler's virtual time. See ``Clock``.
    public var clock: Clock {
        Clock(scheduler: self)
    }
}
