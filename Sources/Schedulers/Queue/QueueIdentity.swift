@_spi(SchedulersInternal) import Disposables
import Dispatch
import Synchronization

/// Answers "is the current thread running work of this queue?" with a `DispatchSpecificKey`,
/// which also sees through a queue's target hierarchy: `Thread.isMainThread` or thread identity
/// cannot (Platform notes, item 7: the main queue may be drained off the main thread).
///
/// Each queue gets one token, set the first time a scheduler asks, and shared by every scheduler
/// on that queue (a QueueScheduler's queue may be the caller's, used by others too).
enum QueueIdentity {
    final class Token: Sendable {}

    private static let key = DispatchSpecificKey<Token>()
    /// Makes "get the token, or set a new one" atomic across schedulers sharing a queue.
    private static let lock = Lock(())

    /// The queue's token, set on first use.
    static func token(of queue: DispatchQueue) -> Token {
        lock.withLock { _ in
            if let token = queue.getSpecific(key: key) { return token }
            let token = Token()
            queue.setSpecific(key: key, value: token)
            return token
        }
    }

    /// Whether the calling code runs on `queue` (or on a queue that targets it and has no token
    /// of its own, which runs only while `queue` does). Never a false positive.
    static func isCurrent(_ queue: DispatchQueue) -> Bool {
        // The token first: once it is set, work running on `queue` is sure to see it.
        let token = token(of: queue)
        return DispatchQueue.getSpecific(key: key) === token
    }
}
