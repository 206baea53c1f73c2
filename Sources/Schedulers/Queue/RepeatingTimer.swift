@_spi(SchedulersInternal) import Disposables
import Dispatch
import Synchronization

/// A repeating action on a ``QueueScheduler``: a `DispatchSourceTimer` and the disposable that
/// cancels it.
///
/// The timer keeps itself alive: the source's event handler holds this object, which holds the
/// source, so the timer runs until disposed whether or not anyone retains the disposable or the
/// scheduler. Disposing releases the action and the scheduler before `dispose()` returns (a tick
/// in progress holds its own reference, so then when that tick returns) and cancels the source,
/// which makes Dispatch drop the handler and so break the cycle.
final class RepeatingTimer: Disposable {
    private struct Work {
        var scheduler: Scheduler
        var action: @Sendable () -> Void
    }

    /// nil once disposed.
    private let work: Lock<Work?>
    private let source: DispatchSource & DispatchSourceTimer

    /// Starts a timer on `scheduler.queue` whose first tick is at `start`.
    init<Start: Sendable>(
        scheduler: QueueScheduler, start: Start, intervalNanoseconds: Int, leewayNanoseconds: Int,
        action: @escaping @Sendable () -> Void,
        arm: (DispatchSourceTimer, Start, DispatchTimeInterval, DispatchTimeInterval) -> Void
    ) {
        work = Lock(Work(scheduler: scheduler, action: action))
        // On Linux `any DispatchSourceTimer` is neither class-bound nor Sendable (Platform notes, item 4).
        source = DispatchSource.makeTimerSource(queue: scheduler.queue) as! DispatchSource & DispatchSourceTimer
        arm(source, start, .nanoseconds(intervalNanoseconds), .nanoseconds(leewayNanoseconds))
        source.setEventHandler { [self] in tick() }
        // Resumed here and never suspended again: Dispatch crashes on releasing a source that
        // was never resumed (Platform notes, item 3).
        source.resume()
    }

    var isDisposed: Bool {
        work.withLock { $0 == nil }
    }

    /// Stops further ticks (a tick already running completes), releases the action and the
    /// scheduler before returning, and cancels the source. From the timer's own queue, no tick
    /// runs after this returns.
    func dispose() {
        let released = work.withLock { $0.take() }
        guard released != nil else { return }
        source.cancel()
    }

    /// One tick, on the scheduler's queue, as its current scheduler.
    private func tick() {
        guard let work = work.withLock({ $0 }) else { return }
        work.scheduler.performAsCurrentScheduler(work.action)
    }
}
