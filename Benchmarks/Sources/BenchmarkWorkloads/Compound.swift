import Disposables
import Synchronization

/// Workload 6: add `count` disposables to a compound disposable, remove half of them in a seeded
/// random order, then dispose it (disposing the other half). Ours is ``CompoundDisposable``; the
/// limit is a dictionary keyed by object identity under a `Mutex`.
///
/// The disposables are made by ``makeInput(count:seed:)`` beforehand, outside what is measured.
public enum CompoundWorkload {
    public struct Input {
        public let disposables: [ActionDisposable]
        /// Indices into `disposables`: the half to remove, in the order to remove them.
        public let removals: [Int]
    }

    public static func makeInput(count: Int, seed: UInt64 = 7) -> Input {
        var random = SplitMix64(seed: seed)
        var order = Array(0..<count)
        order.shuffle(using: &random)
        return Input(disposables: (0..<count).map { _ in ActionDisposable() }, removals: Array(order.prefix(count / 2)))
    }

    public static func ours(_ input: Input) {
        let compound = CompoundDisposable()
        for disposable in input.disposables { compound.add(disposable) }
        for index in input.removals { compound.remove(input.disposables[index]) }
        compound.dispose()
    }

    public static func lockedDictionary(_ input: Input) {
        let compound = LockedDictionaryDisposable()
        for disposable in input.disposables { compound.add(disposable) }
        for index in input.removals { compound.remove(input.disposables[index]) }
        compound.dispose()
    }
}

/// The limit: `[ObjectIdentifier: Disposable]` under a lock; nil once disposed. Disposes in no
/// particular order (ours keeps insertion order) and does not count repeated adds.
final class LockedDictionaryDisposable: Sendable {
    private let children = Mutex<[ObjectIdentifier: any Disposable]?>([:])

    func add(_ disposable: any Disposable) {
        let accepted = children.withLock { children -> Bool in
            guard children != nil else { return false }
            children![ObjectIdentifier(disposable)] = disposable
            return true
        }
        if !accepted { disposable.dispose() }
    }

    func remove(_ disposable: any Disposable) {
        let removed = children.withLock { $0?.removeValue(forKey: ObjectIdentifier(disposable)) }
        _ = removed
    }

    func dispose() {
        guard let taken = children.withLock({ children in children.take() }) else { return }
        for disposable in taken.values { disposable.dispose() }
    }
}
