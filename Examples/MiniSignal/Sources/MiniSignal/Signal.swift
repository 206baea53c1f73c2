import Schedulers

/// A cold stream of events: each ``observe(_:)`` runs the signal's work anew (RACSignal).
///
/// Subscribing goes through ``Scheduler/subscription``, exactly as RAC's `-subscribe:` does: when
/// the caller is already inside a scheduler (or on the main thread), the work starts inline, so a
/// chain built inside one scheduler's action stays on it; from any other thread it starts on a
/// background queue rather than on whatever thread happened to call. That is why
/// ``subscribe(on:)`` decides where a cold signal's work runs.
public struct Signal<Value: Sendable>: Sendable {
    private let didSubscribe: @Sendable (Observer<Value>) -> (any Disposable)?

    /// A signal that runs `didSubscribe` for each subscriber. It sends events to the observer it
    /// is given and returns what to dispose when the subscriber goes away.
    public init(_ didSubscribe: @escaping @Sendable (Observer<Value>) -> (any Disposable)?) {
        self.didSubscribe = didSubscribe
    }

    /// Subscribes `handler`. Dispose the result to stop receiving events.
    @discardableResult
    public func observe(_ handler: @escaping @Sendable (Event<Value>) -> Void) -> any Disposable {
        let observer = Observer(handler)
        let scheduled = Scheduler.subscription.schedule { [didSubscribe] in
            // Disposed before the work started: do not start it.
            guard !observer.disposable.isDisposed else { return }
            observer.disposable.add(didSubscribe(observer))
        }
        observer.disposable.add(scheduled)
        return observer.disposable
    }

}

extension Signal {
    /// Sends `values` one by one, then completes, all inside `didSubscribe`.
    public static func just(_ values: Value...) -> Signal {
        Signal { observer in
            for value in values { observer.send(.value(value)) }
            observer.send(.completed)
            return nil
        }
    }
}
