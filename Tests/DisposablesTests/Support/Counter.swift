import Synchronization

/// A thread-safe counter that `@Sendable` actions can capture.
final class Counter: Sendable {
    private let atomic = Atomic<Int>(0)

    var value: Int { atomic.load(ordering: .acquiring) }

    func increment() {
        atomic.wrappingAdd(1, ordering: .acquiringAndReleasing)
    }
}
