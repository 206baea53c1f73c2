import Schedulers
import Synchronization

/// Receives one subscription's events and enforces the grammar, so no operator has to: after a
/// terminating event, or once the subscription is disposed, nothing more gets through.
///
/// That check is what lets operators such as ``Signal/deliver(on:)`` fire and forget: an event
/// still queued on a scheduler when the subscriber disposes is simply dropped when it runs.
/// Like RAC's subscribers, an observer expects its events one at a time (signals are serial).
public final class Observer<Value: Sendable>: Sendable {
    private let handler: @Sendable (Event<Value>) -> Void
    private let isTerminated = Mutex(false)

    /// The subscription: disposing it stops the events. A terminating event disposes it.
    public let disposable = CompoundDisposable()

    public init(_ handler: @escaping @Sendable (Event<Value>) -> Void) {
        self.handler = handler
    }

    /// Delivers `event` on the calling thread, unless the subscription has ended.
    public func send(_ event: Event<Value>) {
        // Decide under the lock, deliver after it: the handler is user code.
        let deliver = isTerminated.withLock { terminated in
            guard !terminated, !disposable.isDisposed else { return false }
            terminated = event.isTerminating
            return true
        }
        guard deliver else { return }
        handler(event)
        if event.isTerminating { disposable.dispose() }
    }
}
