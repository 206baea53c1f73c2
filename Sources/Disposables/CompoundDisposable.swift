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
///   O(n) in the number of children.
public final class CompoundDisposable: Disposable {
    private struct State {
        /// The children in the order they were first added; a removed child leaves a hole.
        var entries: [(any Disposable)?] = []
        /// Each child's place in `entries`, by identity: a table of addresses (IdentityIndex.swift),
        /// not a `Dictionary`, whose hashing was most of an `add`'s and a `remove`'s cost.
        var slots = IdentityIndex()
        var isDisposed = false

        /// Squeezes the holes out once they outnumber the children, so memory stays
        /// proportional to the children and removal O(1) amortised.
        mutating func compactIfSparse() {
            let holes = entries.count - slots.count
            guard holes > 32, holes > slots.count else { return }
            entries.removeAll { $0 == nil }
            for (slot, entry) in entries.enumerated() {
                slots.set(ObjectIdentifier(entry!), slot)
            }
        }
    }

    private let state = Lock(State())

    /// An empty compound disposable.
    public init() {}

    /// A compound disposable holding `disposables`.
    ///
    /// - Parameter disposables: added in order, as by ``add(_:)``.
    public init(_ disposables: [any Disposable]) {
        for disposable in disposables { add(disposable) }
    }

    public var isDisposed: Bool {
        state.withLock { $0.isDisposed }
    }

    /// Adds `disposable`, to be disposed when this one is. If this one is already disposed,
    /// disposes `disposable` immediately on the calling thread instead.
    ///
    /// - Parameter disposable: the disposable to own; nil, or one already disposed, is ignored.
    public func add(_ disposable: (any Disposable)?) {
        guard let disposable, !disposable.isDisposed else { return }
        let key = ObjectIdentifier(disposable)
        let accepted = state.withLock { state -> Bool in
            guard !state.isDisposed else { return false }
            // A child added twice keeps its first place.
            if state.slots.insertIfAbsent(key, state.entries.count) {
                state.entries.append(disposable)
            }
            return true
        }
        if !accepted { disposable.dispose() }
    }

    /// Removes every occurrence of `disposable` (by identity) without disposing it. Does nothing
    /// when it is not contained or this one is already disposed.
    ///
    /// - Parameter disposable: the disposable to take out, compared by identity; nil does nothing.
    public func remove(_ disposable: (any Disposable)?) {
        guard let disposable else { return }
        let key = ObjectIdentifier(disposable)
        // Taken out under the lock, released after it: releasing may run arbitrary deinit code.
        let removed = state.withLock { state -> (any Disposable)? in
            guard let slot = state.slots.removeValue(for: key) else { return nil }
            defer { state.compactIfSparse() }
            return state.entries[slot].take()
        }
        _ = removed
    }

    /// Disposes every contained disposable in insertion order, once, on the calling thread.
    public func dispose() {
        let entries = state.withLock { state -> [(any Disposable)?] in
            guard !state.isDisposed else { return [] }
            state.isDisposed = true
            state.slots.removeAll()
            defer { state.entries = [] }
            return state.entries
        }
        for entry in entries {
            entry?.dispose()
        }
    }
}
