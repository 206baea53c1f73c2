@_spi(SchedulersInternal) import Disposables
import Foundation

extension TestScheduler {
    /// The scheduler's virtual time as a `Clock`, for APIs that take one:
    /// `try await Task.sleep(for: .seconds(5), clock: scheduler.clock)`.
    ///
    /// ``TestScheduler/now`` is a `Date`, so the clock is a view that shares the scheduler's
    /// virtual time rather than the scheduler itself: its ``now`` is the scheduler's, and a sleep
    /// is an action scheduled at the deadline, which runs when the test steps or advances the
    /// scheduler. Durations convert to seconds exactly as `advance(by:)` adds them, so sleeping
    /// 5 s and advancing by 5 meet on the same instant.
    ///
    /// The clock does not keep the scheduler alive. A sleep on the clock of a deinitialised
    /// scheduler throws `CancellationError`, as does a sleep whose scheduler is deinitialised
    /// while it waits.
    public struct Clock: _Concurrency.Clock {
        /// Swift's `Duration`: spans of virtual time convert to seconds as `advance(by:)` adds them.
        public typealias Duration = Swift.Duration

        /// A moment of the scheduler's virtual time.
        public struct Instant: InstantProtocol {
            /// Swift's `Duration`.
            public typealias Duration = Swift.Duration

            /// This instant as a date, comparable with ``TestScheduler/now``.
            public var date: Date

            /// The instant at `date` of the scheduler's virtual time.
            ///
            /// - Parameter date: the date, as ``TestScheduler/now`` reports it.
            public init(date: Date) {
                self.date = date
            }

            /// This instant moved by `duration`. Saturates instead of trapping: a result
            /// beyond `Double`'s finite range stays at its largest (or smallest) finite value.
            ///
            /// - Parameter duration: How far to move (negative: back).
            /// - Returns: The moved instant.
            public func advanced(by duration: Duration) -> Instant {
                let seconds = date.timeIntervalSinceReferenceDate + duration.timeInterval
                if seconds.isInfinite {
                    let limit = seconds > 0 ? Double.greatestFiniteMagnitude : -.greatestFiniteMagnitude
                    return Instant(date: Date(timeIntervalSinceReferenceDate: limit))
                }
                return Instant(date: Date(timeIntervalSinceReferenceDate: seconds))
            }

            /// The span from this instant to `other`. Saturates instead of trapping: a span
            /// longer than `Int64.max` seconds (after `advance(by: 1e300)`, say) is
            /// ``Instant/longestDuration`` (or its negation), the longest whose `components` can
            /// still be read.
            ///
            /// - Parameter other: The instant to measure to.
            /// - Returns: `other - self`, saturated.
            public func duration(to other: Instant) -> Duration {
                let seconds = other.date.timeIntervalSince(date)
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
                lhs.date < rhs.date
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

        /// The scheduler's ``TestScheduler/now``. While an action or job runs, its due date.
        public var now: Instant {
            Instant(date: core.state.withLock { $0.now })
        }

        /// Zero: virtual time has no granularity.
        public var minimumResolution: Duration { .zero }

        /// Suspends until the scheduler's virtual time reaches `deadline` (a past deadline: at the
        /// next step). `tolerance` is ignored.
        ///
        /// A task that sleeps here while running elsewhere than on the scheduler (neither
        /// preferring it nor captured by ``TestScheduler/withCapturedTasks(_:)``) makes the
        /// scheduler print a warning to stderr, once per scheduler, as `sleep(for:)` does.
        ///
        /// - Parameters:
        ///   - deadline: The virtual instant to wake at.
        ///   - tolerance: Ignored.
        /// - Throws: `CancellationError` as soon as the task is cancelled; the wake-up is
        ///   disposed. Also when the scheduler is (or becomes) deinitialised.
        public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
            // The scheduler is looked up inside `arm` and not kept in this frame, so a sleeping
            // task does not keep it alive. Gone: no wake-up, so `Sleeper` throws at once.
            if let scheduler = reference.scheduler as? TestScheduler {
                DetachedSleepWarning.check(scheduler, call: "clock.sleep(until:tolerance:)")
            }
            try await Sleeper.sleep { [reference] wake in reference.scheduler?.schedule(after: deadline.date, wake) }
        }
    }

    /// A `Clock` that reads and sleeps in this scheduler's virtual time. See ``Clock``.
    public var clock: Clock {
        Clock(scheduler: self)
    }
}
