@_spi(SchedulersInternal) import Disposables
import Foundation
import Synchronization

/// The dates a ``TestScheduler`` reports as ``TestScheduler/now`` at times it read from dates
/// that those times do not round back to (see ``VirtualTime/resolving(seconds:against:)``): a
/// date made as `now.addingTimeInterval(x)` is rounded twice, and means `now + x`, whose own
/// `Date` may be the next `Double` over. While virtual time is there (the action scheduled at
/// that date runs, or `advance(to:)` that date has returned), `now` reads the date the test
/// gave, as it did when time was a `Date`.
///
/// Rarely anything in it: only dates that meet a microsecond grid after a double rounding. So
/// the reading of `now` checks one counter first, and scheduling or running an action that was
/// not made from such a date never comes here. Entries for times already passed are dropped as
/// new ones arrive. Two such dates that mean one time: the later one given is reported.
final class DateReadings: Sendable {
    private struct State {
        var dates: [VirtualTime: Date] = [:]
        /// Drop passed entries once there are this many (then twice as many as remain).
        var pruneAt = 16
    }

    private let state = Lock(State())
    /// How many entries there are: read without the lock, so that an empty table costs a load.
    /// An entry is added under the scheduler core's lock before the action it belongs to can be
    /// popped, so the driver that runs the action sees it.
    private let count = Atomic<Int>(0)

    /// The date to report at `time`, if one was given that `time.date` is not.
    func date(at time: VirtualTime) -> Date? {
        guard count.load(ordering: .acquiring) != 0 else { return nil }
        return state.withLock { $0.dates[time] }
    }

    /// Reports `date` at `time` from now on, forgetting entries earlier than `now`.
    func record(_ date: Date, at time: VirtualTime, now: VirtualTime) {
        state.withLock { state in
            if state.dates.count >= state.pruneAt {
                state.dates = state.dates.filter { $0.key >= now }
                state.pruneAt = max(16, 2 * state.dates.count)
            }
            state.dates[time] = date
            count.store(state.dates.count, ordering: .releasing)
        }
    }
}
