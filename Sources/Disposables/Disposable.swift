/// Something that can be cancelled: RACDisposable's protocol.
///
/// A disposable is a thread-safe "disposed" flag, usually with some clean-up work attached.
/// Disposing is how a subscriber says "I no longer want this": a scheduled action that has not
/// started yet will not start, a timer stops, a subscription is torn down.
///
/// Every conforming type in this module guarantees:
/// - `dispose()` is idempotent: the clean-up runs at most once, however many threads call it.
/// - `dispose()` may be called from any thread, including from inside the clean-up it triggers.
/// - `dispose()` never runs user code while holding a lock, so clean-up may freely dispose or
///   mutate other disposables (its parent included) without deadlocking.
/// - `isDisposed` becomes `true` no later than the moment the first `dispose()` returns, and never
///   goes back to `false`.
public protocol Disposable: AnyObject, Sendable {
    /// Whether `dispose()` has been called. Thread-safe; once `true`, always `true`.
    var isDisposed: Bool { get }

    /// Performs the clean-up, on the calling thread, the first time it is called; later calls do
    /// nothing. Thread-safe and idempotent.
    func dispose()
}

extension Disposable {
    /// Wraps this disposable in a ``ScopedDisposable``, which disposes it when the wrapper is
    /// deinitialised (RAC's `-asScopedDisposable`). A `ScopedDisposable` returns itself.
    ///
    /// - Returns: a ``ScopedDisposable`` wrapping this disposable, or this one itself if it is
    ///   a ``ScopedDisposable`` already.
    public func asScoped() -> ScopedDisposable {
        if let scoped = self as? ScopedDisposable { return scoped }
        return ScopedDisposable(self)
    }
}
