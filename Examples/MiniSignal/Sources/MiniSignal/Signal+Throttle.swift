import Foundation
import Schedulers

extension Signal {
    /// Sends a value only once `interval` seconds have passed without a newer one (RAC's
    /// `-throttle:`, which Combine and Rx call *debounce*). Completion first sends the value
    /// still waiting, then completes; a failure drops it.
    ///
    /// The waiting value lives under a lock, because upstream values and the timer's action
    /// may run on different threads. Each new value replaces the timer: `swap` hands back the
    /// old one (a serial disposable does not dispose what it replaces), which we dispose.
    public func throttle(_ interval: TimeInterval, on scheduler: Scheduler) -> Signal {
        Signal { observer in
            let waiting = Shared<Value?>(nil)
            let timer = SerialDisposable()
            let flush: @Sendable () -> Void = {
                if let value = waiting.withLock({ $0.take() }) { observer.send(.value(value)) }
            }
            let upstream = observe { event in
                switch event {
                case .value(let value):
                    waiting.withLock { $0 = value }
                    timer.swap(scheduler.schedule(afterDelay: interval, flush))?.dispose()
                case .completed:
                    timer.dispose()
                    flush()
                    observer.send(event)
                case .failed:
                    timer.dispose()
                    observer.send(event)
                }
            }
            return CompoundDisposable([upstream, timer])
        }
    }
}
