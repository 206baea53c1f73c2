/// A ``CompoundDisposable`` that also disposes everything it holds when it is deinitialised:
/// RxSwift's `DisposeBag` habit in one object, spelled the RAC way (a scoped compound).
///
/// Keep one in a property of whatever owns the subscriptions (a view model, a screen) and add
/// each subscription to it, with ``add(_:)`` or ``Disposable/disposed(by:)-(ScopedCompoundDisposable)``;
/// they are all disposed when the owner goes away, or earlier with ``dispose()``. To drop every
/// subscription and keep adding new ones, replace it (`bag = ScopedCompoundDisposable()`), as
/// with a `DisposeBag`.
///
/// - Its children are disposed exactly once: by the first ``dispose()``, or by the deinit if
///   nothing disposed it before. They are disposed in the order they were added, outside any
///   lock, on the thread that calls `dispose()`, or for the deinit on whichever thread releases
///   the last reference.
/// - Everything else is ``CompoundDisposable``'s: `add` after disposal disposes the argument at
///   once on the calling thread; `add(nil)` and adding an already-disposed disposable do nothing;
///   `remove(_:)` takes a child out without disposing it.
///
/// It is not named `DisposeBag`, so that code moving off RxSwift file by file can import both.
///
/// - Complexity: `add` and `remove` are O(1) on average; disposal is O(n) in the children.
public final class ScopedCompoundDisposable: Disposable {
    /// The children, and the lock that decides between `add` and `dispose`.
    private let compound: CompoundDisposable

    /// An empty scoped compound disposable.
    public init() {
        compound = CompoundDisposable()
    }

    /// A scoped compound disposable holding `disposables`, each added as by ``add(_:)``.
    ///
    /// - Parameter disposables: disposed when this one is disposed or deinitialised.
    public init(_ disposables: [any Disposable]) {
        compound = CompoundDisposable(disposables)
    }

    deinit {
        // CompoundDisposable's dispose is idempotent: after an explicit dispose this does nothing.
        compound.dispose()
    }

    public var isDisposed: Bool { compound.isDisposed }

    /// Disposes every child, on the calling thread; later calls, and the deinit, do nothing.
    public func dispose() {
        compound.dispose()
    }

    /// Adds `disposable`, to be disposed when this one is disposed or deinitialised. If this one
    /// is already disposed, disposes `disposable` immediately on the calling thread instead.
    ///
    /// - Parameter disposable: the disposable to own; nil, or one already disposed, is ignored.
    public func add(_ disposable: (any Disposable)?) {
        compound.add(disposable)
    }

    /// Takes out every occurrence of `disposable` (compared by identity) without disposing it.
    ///
    /// - Parameter disposable: the child to take out; nil, or one not held, is ignored.
    public func remove(_ disposable: (any Disposable)?) {
        compound.remove(disposable)
    }
}
