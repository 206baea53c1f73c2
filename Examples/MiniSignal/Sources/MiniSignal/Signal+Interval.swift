import Foundation
import Schedulers

extension Signal where Value == Int {
    /// Sends 1, 2, 3, … every `interval` seconds on `scheduler`, never completing (RAC's
    /// `+interval:onScheduler:withLeeway:`). `leeway` lets the system fire up to that many
    /// seconds late, to batch wake-ups and save power. Disposing stops the ticks.
    ///
    /// RAC sent `[NSDate date]`; a tick count reads the same in real and virtual time.
    ///
    /// The repeating API takes the *date* of the first run. RAC computed it from the wall clock,
    /// which a ``TestScheduler`` does not follow, so we read the scheduler's own clock (see
    /// `Scheduler.clockNow`). Starting from "a date in the past" instead would fire at once but
    /// would let Dispatch align later ticks to that old date, not to the first tick.
    public static func interval(_ interval: TimeInterval, on scheduler: Scheduler, leeway: TimeInterval = 0) -> Signal {
        Signal { observer in
            let ticks = Shared(0)
            let start = scheduler.clockNow.addingTimeInterval(interval)
            return scheduler.schedule(after: start, repeatingEvery: interval, withLeeway: leeway) {
                let tick = ticks.withLock { count in
                    count += 1
                    return count
                }
                observer.send(.value(tick))
            }
        }
    }
}

extension Scheduler {
    /// "Now" on this scheduler's clock: virtual on a ``TestScheduler``, the wall clock elsewhere.
    /// The base class has no clock of its own, so operators that need an absolute date ask here.
    var clockNow: Date {
        (self as? TestScheduler)?.now ?? Date()
    }
}
