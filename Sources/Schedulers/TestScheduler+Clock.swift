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

            /// The instant `duration` after this one.
            ///
            /// - Parameter duration: the span to add; negative goes back.
            /// - Returns: the later (or earlier) instant.
            public func advanced(by duration: Duration) -> Instant {
                Instant(date: date.addingTimeInterval(duration.timeInterval))
            }

            /// The span from this instant to `other`.
            ///
            /// - Parameter other: the instant to measure to.
            /// - Returns: the span, negative when `other` is earlier.
            public func duration(to other: Instant) -> Duration {
                .seconds(other.date.timeIntervalSince(date))
            }

            public static func < (lhs: Instant, rhs: Instant) -> Bool {
                lhs.date < rhs.date
            }
        }

        private let core: VirtualTimeCore
        private weak var scheduler: TestScheduler?

        init(scheduler: TestScheduler) {
            core = scheduler.core
            self.scheduler = scheduler
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
        /// - Parameters:
        ///   - deadline: the virtual time to wake at.
        ///   - tolerance: ignored.
        /// - Throws: `CancellationError` as soon as the task is cancelled; the wake-up is
        ///   disposed. Also when the scheduler is (or becomes) deinitialised.
        public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
            // The scheduler is looked up inside `arm` and not kept in this frame, so a sleeping
            // task does not keep it alive. Gone: no wake-up, so `Sleeper` throws at once.
            try await Sleeper.sleep { [self] wake in scheduler?.schedule(after: deadline.date, wake) }
        }
    }

    /// A `Clock` that reads and sleeps in this scheduler's virtual time. See ``Clock``.
    public var clock: Clock {
        Clock(scheduler: self)
    }
}
