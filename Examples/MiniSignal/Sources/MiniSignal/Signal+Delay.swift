import Foundation
import Schedulers

extension Signal {
    /// Sends each value, and completion, `interval` seconds later on `scheduler` (RAC's
    /// `-delay:`). A failure is sent at once: there is no point making an error wait.
    ///
    /// `schedule(afterDelay:)` counts on the scheduler's own clock, so on a ``TestScheduler`` the
    /// delay is virtual. Each pending send is kept in a compound disposable, so disposing the
    /// subscription cancels them. (Like RAC, entries are not removed once they have run; a
    /// production library would, to keep memory flat on long streams.)
    public func delay(_ interval: TimeInterval, on scheduler: Scheduler) -> Signal {
        Signal { observer in
            let disposables = CompoundDisposable()
            disposables.add(observe { event in
                if case .failed = event { return observer.send(event) }
                disposables.add(scheduler.schedule(afterDelay: interval) { observer.send(event) })
            })
            return disposables
        }
    }
}
