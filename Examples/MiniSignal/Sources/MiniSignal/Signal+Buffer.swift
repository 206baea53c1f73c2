import Foundation
import Schedulers

extension Signal {
    /// Collects values and sends them as an array `interval` seconds after the first value of
    /// each batch (RAC's `-bufferWithTime:onScheduler:`). Completion sends what is left, then
    /// completes; an empty batch is never sent.
    ///
    /// The timer starts with a batch's first value rather than ticking forever, so a quiet signal
    /// costs nothing. Buffer and timer live in one locked state: deciding "is a timer running?"
    /// and starting one must not race with the timer taking the batch.
    public func buffer(time interval: TimeInterval, on scheduler: Scheduler) -> Signal<[Value]> {
        Signal<[Value]> { observer in
            let batch = Shared<(values: [Value], timerStarted: Bool)>(([], false))
            let timer = SerialDisposable()
            let flush: @Sendable () -> Void = {
                let values = batch.withLock { state in
                    state.timerStarted = false
                    return state.values.take()
                }
                if !values.isEmpty { observer.send(.value(values)) }
            }
            let upstream = observe { event in
                switch event {
                case .value(let value):
                    let startTimer = batch.withLock { state in
                        state.values.append(value)
                        defer { state.timerStarted = true }
                        return !state.timerStarted
                    }
                    if startTimer { timer.disposable = scheduler.schedule(afterDelay: interval, flush) }
                case .completed:
                    timer.dispose()
                    flush()
                    observer.send(.completed)
                case .failed(let error):
                    timer.dispose()
                    observer.send(.failed(error))
                }
            }
            return CompoundDisposable([upstream, timer])
        }
    }
}

extension Array {
    /// The elements, leaving the array empty.
    fileprivate mutating func take() -> Array {
        defer { self = [] }
        return self
    }
}
