import Synchronization

/// RACDisposable: a disposed flag, optionally with an action to run on the first `dispose()`.
///
/// - `init()` makes a flag only.
/// - `init(_:)` runs `action` exactly once, on the thread that calls `dispose()` first, and
///   releases it (and everything it captured) before that call returns. Concurrent callers
///   return at once without waiting for the action to finish.
/// - It never disposes itself on deinit: an `ActionDisposable` that is dropped without being
///   disposed simply releases its action without running it (use ``ScopedDisposable`` for that).
///
/// `isDisposed` and the first `dispose()` are lock-free: one atomic compare-and-exchange decides
/// which caller owns the action.
public final class ActionDisposable: Disposable, @unchecked Sendable {
    // `@unchecked`: `action` is written once in `init`, then read and cleared only by the one
    // thread that wins the compare-and-exchange on `disposed`. No two threads ever touch it.
    private let disposed = Atomic<Bool>(false)
    private var action: (@Sendable () -> Void)?

    /// A disposable that only records whether it has been disposed.
    public init() {
        action = nil
    }

    /// A disposable that runs `action` on the first `dispose()`, on the disposing thread.
    ///
    /// - Parameter action: run once, by the first `dispose()`, on that caller's thread; released
    ///   before that call returns.
    public init(_ action: @escaping @Sendable () -> Void) {
        self.action = action
    }

    public var isDisposed: Bool {
        disposed.load(ordering: .acquiring)
    }

    public func dispose() {
        guard disposed.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
        else { return }
        // Only the winning thread reaches here. Take the action out before calling it so that a
        // re-entrant `dispose()` from inside it sees nothing, and so that it is released as soon
        // as it returns.
        let action = self.action
        self.action = nil
        action?()
    }
}
