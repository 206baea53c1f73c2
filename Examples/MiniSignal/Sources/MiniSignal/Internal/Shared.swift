import Synchronization

/// A value that several closures share and mutate, always under a lock. (`Mutex` alone cannot
/// be captured by an escaping closure: it is not copyable. This class is the usual home for it.)
final class Shared<State>: Sendable {
    private let mutex: Mutex<State>

    init(_ state: sending State) {
        mutex = Mutex(state)
    }

    /// Never call user code inside `body`: `Mutex` is not recursive.
    func withLock<Result>(_ body: (inout sending State) -> sending Result) -> sending Result {
        mutex.withLock(body)
    }
}
