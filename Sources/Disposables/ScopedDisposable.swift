import Synchronization

/// RACScopedDisposable: disposes the disposable it wraps when it is itself deinitialised.
///
/// Keep one in a property (or a local) to tie a subscription's lifetime to its owner's. It may
/// also be disposed early, on any thread; the wrapped disposable is then disposed on the calling
/// thread. Either way the wrapped disposable is disposed exactly once: the first `dispose()` or
/// the deinit, whichever comes first; later calls and the deinit after an explicit dispose do
/// nothing (a user-defined disposable need not be idempotent). Deinit disposes on whichever
/// thread releases the last reference.
public final class ScopedDisposable: Disposable {
    /// The disposable disposed at deinit.
    public let disposable: any Disposable

    /// Whether this wrapper has disposed `disposable` already: one exchange decides who does.
    private let disposed = Atomic<Bool>(false)

    /// Wraps `disposable`, to dispose it at deinit.
    ///
    /// - Parameter disposable: disposed once, when this wrapper is disposed or deinitialised.
    public init(_ disposable: any Disposable) {
        self.disposable = disposable
    }

    deinit {
        dispose()
    }

    /// Whether this wrapper, or the wrapped disposable itself, has been disposed.
    public var isDisposed: Bool {
        disposed.load(ordering: .acquiring) || disposable.isDisposed
    }

    /// Disposes the wrapped disposable on the calling thread, the first time only.
    public func dispose() {
        guard !disposed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        disposable.dispose()
    }
}
