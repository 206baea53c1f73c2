import Synchronization

/// RACCompoundDisposable: a disposable that owns other disposables and disposes them all when it
/// is disposed.
///
/// - `dispose()` marks it disposed and then disposes every contained disposable, in the order they
///   were added, on the calling thread and outside its lock, so a child may dispose, add to or
///   remove from this compound disposable from inside its own action. The children are released
///   before `dispose()` returns.
/// - `add(_:)` on an already-disposed compound disposable disposes the argument at once, on the
///   calling thread. An `add` racing with `dispose()` is decided under one lock, so the added
///   disposable is always either disposed by `dispose()` or disposed by `add` itself, never lost.
/// - `add(nil)` and adding a disposable that is already disposed do nothing.
/// - `remove(_:)` takes out every occurrence of that object (compared by identity) without
///   disposing it.
///
/// - Complexity: `add` and `remove` are O(1) on average (RAC scanned an array); `dispose()` is
///   O(n log n) in the number of children, once.
public final class CompoundDisposable: Disposable {
    private struct Child {
        var disposable: any Disposable
        var occurrences: Int
        /// When it was first added, so disposal follows insertion order.
        var order: UInt64
    }

    private struct State {
        /// nil once disposed.
        var children: [ObjectIdentifier: Child]? = [:]
        var nextOrder: UInt64 = 0
    }

    private let state = Lock(State())

    /// An empty compound disposable.
    public init() {}

    /// A compound disposable holding `disposables`.
    public init(_ disposables: [any Disposable]) {
        for disposable in disposables { add(disposable) }
    }

    public var isDisposed: Bool {
        state.withLock { $0.children == nil }
    }

    /// Adds `disposable`, to be disposed when this one is. If this one is already disposed,
    /// disposes `disposable` immediately on the calling thread instead.
    public func add(_ disposable: (any Disposable)?) {
        guard let disposable, !disposable.isDisposed else { return }
        let key = ObjectIdentifier(disposable)
        let accepted = state.withLock { state -> Bool in
            guard state.children != nil else { return false }
            if state.children![key] != nil {
                state.children![key]!.occurrences += 1
            } else {
                state.children![key] = Child(disposable: disposable, occurrences: 1, order: state.nextOrder)
                state.nextOrder &+= 1
            }
            return true
        }
        if !accepted { disposable.dispose() }
    }

    /// Removes every occurrence of `disposable` (by identity) without disposing it. Does nothing
    /// when it is not contained or this one is already disposed.
    public func remove(_ disposable: (any Disposable)?) {
        guard let disposable else { return }
        let key = ObjectIdentifier(disposable)
        // Take the child out under the lock but let it be released after, outside it: releasing
        // may run arbitrary deinit code.
        let removed = state.withLock { $0.children?.removeValue(forKey: key) }
        _ = removed
    }

    /// Disposes every contained disposable in insertion order, once, on the calling thread.
    public func dispose() {
        guard let children = state.withLock({ state -> [ObjectIdentifier: Child]? in
            defer { state.children = nil }
            return state.children
        }) else { return }
        for child in children.values.sorted(by: { $0.order < $1.order }) {
            child.disposable.dispose()
        }
    }
}
