import Schedulers

/// A hot source: events are sent from outside, whenever the owner calls ``send(_:)``, to
/// whoever is subscribed at that moment (RACSubject). Subscribing starts no work, so it does not
/// matter where it happens: ``Signal/subscribe(on:)`` changes nothing about where a pipe's
/// events arrive — they arrive on the thread that calls ``send(_:)``. Use
/// ``Signal/deliver(on:)`` to move them.
public final class Pipe<Value: Sendable>: Sendable {
    private let observers = Shared(Bag<Observer<Value>>())

    public init() {}

    /// Subscribers see the events sent after they subscribed, none before.
    public var signal: Signal<Value> {
        Signal { [observers] observer in
            let token = observers.withLock { $0.insert(observer) }
            return ActionDisposable { observers.withLock { _ = $0.remove(token) } }
        }
    }

    /// Sends `event` to every current subscriber, on the calling thread.
    public func send(_ event: Event<Value>) {
        // Copy under the lock, send after it: an observer may subscribe or dispose meanwhile.
        let current = observers.withLock { Array($0) }
        for observer in current { observer.send(event) }
    }
}
