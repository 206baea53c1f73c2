import Foundation
import Schedulers

/// The error ``Signal/timeout(_:on:)`` fails with.
public struct TimeoutError: Error, Equatable {
    public init() {}
}

extension Signal {
    /// Fails with ``TimeoutError`` and unsubscribes if this signal has not terminated within
    /// `interval` seconds of subscription, counted on `scheduler` (RAC's `-timeout:onScheduler:`,
    /// a deadline for the whole signal, not for the gap between values).
    ///
    /// The timer and the upstream subscription share one compound disposable: when the timer
    /// fires it disposes the upstream; when the signal terminates first, the observer disposes
    /// its subscription, which holds that compound, and with it the timer.
    public func timeout(_ interval: TimeInterval, on scheduler: Scheduler) -> Signal {
        Signal { observer in
            let disposables = CompoundDisposable()
            disposables.add(scheduler.schedule(afterDelay: interval) {
                disposables.dispose()
                observer.send(.failed(TimeoutError()))
            })
            disposables.add(observe(observer.send))
            return disposables
        }
    }
}
