import Disposables
import Synchronization

/// A disposable that counts every call to `dispose()` (it is deliberately not idempotent in what
/// it records), so a test can see whether a container disposed it zero, one or more times.
final class SpyDisposable: Disposable {
    private let calls = Atomic<Int>(0)

    init(disposed: Bool = false) {
        if disposed { calls.store(1, ordering: .releasing) }
    }

    /// How many times `dispose()` was called (plus one when created disposed).
    var disposeCount: Int { calls.load(ordering: .acquiring) }

    var isDisposed: Bool { disposeCount > 0 }

    func dispose() {
        calls.wrappingAdd(1, ordering: .acquiringAndReleasing)
    }
}
