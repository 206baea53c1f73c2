import Synchronization

/// RACSerialDisposable: holds one inner disposable that can be replaced over time.
///
/// Replacing the inner disposable (setting ``disposable`` or calling ``swap(_:)``) does **not**
/// dispose the old one: that is RAC's semantics, and what callers that hand the old one
/// elsewhere rely on. Dispose the returned old disposable yourself if you want it gone.
///
/// Once the serial disposable is disposed, its inner disposable is disposed (on the disposing
/// thread, outside the lock) and released, and anything set or swapped in afterwards is disposed
/// immediately on the calling thread; `swap` then returns nil and `disposable` reads nil.
public final class SerialDisposable: Disposable {
    private struct State {
        var inner: (any Disposable)?
        var isDisposed = false
    }

    private let state: Lock<State>

    /// A serial disposable with no inner disposable.
    public init() {
        state = Lock(State())
    }

    /// A serial disposable holding `disposable`.
    ///
    /// - Parameter disposable: the first inner disposable, or nil.
    public init(_ disposable: (any Disposable)?) {
        state = Lock(State(inner: disposable))
    }

    public var isDisposed: Bool {
        state.withLock { $0.isDisposed }
    }

    /// The inner disposable. Setting it replaces the old one without disposing it, or, once this
    /// serial disposable is disposed, disposes the new one immediately.
    public var disposable: (any Disposable)? {
        get { state.withLock { $0.inner } }
        set { swap(newValue) }
    }

    /// Replaces the inner disposable with `newDisposable` and returns the old one, not disposed.
    /// If this serial disposable is already disposed, disposes `newDisposable` at once on the
    /// calling thread and returns nil.
    ///
    /// - Parameter newDisposable: the new inner disposable, or nil.
    /// - Returns: the previous inner disposable, not disposed; nil if there was none or this serial
    ///   disposable is disposed.
    @discardableResult
    public func swap(_ newDisposable: (any Disposable)?) -> (any Disposable)? {
        let (accepted, old) = state.withLock { state -> (Bool, (any Disposable)?) in
            guard !state.isDisposed else { return (false, nil) }
            let old = state.inner
            state.inner = newDisposable
            return (true, old)
        }
        if !accepted { newDisposable?.dispose() }
        return old
    }

    /// Disposes the inner disposable, once, on the calling thread, and releases it.
    public func dispose() {
        let inner = state.withLock { state -> (any Disposable)? in
            guard !state.isDisposed else { return nil }
            state.isDisposed = true
            defer { state.inner = nil }
            return state.inner
        }
        inner?.dispose()
    }
}
