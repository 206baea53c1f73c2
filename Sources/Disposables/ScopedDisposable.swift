/// RACScopedDisposable: disposes the disposable it wraps when it is itself deinitialised.
///
/// Keep one in a property (or a local) to tie a subscription's lifetime to its owner's. It may
/// also be disposed early; the wrapped disposable is then disposed on the calling thread, and
/// deinit does nothing more. Deinit disposes on whichever thread releases the last reference.
public final class ScopedDisposable: Disposable {
    /// The disposable disposed at deinit.
    public let disposable: any Disposable

    /// A scoped disposable that disposes `disposable` when it is deinitialised, or when it is
    /// disposed first.
    ///
    /// - Parameter disposable: the disposable whose lifetime this object's now bounds.
    public init(_ disposable: any Disposable) {
        self.disposable = disposable
    }

    deinit {
        disposable.dispose()
    }

    public var isDisposed: Bool {
        disposable.isDisposed
    }

    public func dispose() {
        disposable.dispose()
    }
}
