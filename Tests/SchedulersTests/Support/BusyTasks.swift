import Foundation
import Synchronization

/// Unrelated work beside a test: detached tasks that keep the cooperative pool busy until
/// ``stop()``, where a test that is exact only usually shows it.
final class BusyTasks: Sendable {
    private let stopped = Atomic<Bool>(false)

    init(tasks: Int = 4) {
        for _ in 0..<tasks {
            Task.detached { [self] in
                var sum = 0
                while !stopped.load(ordering: .relaxed) {
                    for value in 0..<1_000 { sum &+= value }
                    await Task.yield()
                }
                _ = sum
            }
        }
    }

    func stop() {
        stopped.store(true, ordering: .relaxed)
    }

    /// Runs `body` beside busy tasks when `busy`.
    static func around<R>(busy: Bool, _ body: () throws -> R) rethrows -> R {
        let load = busy ? BusyTasks() : nil
        defer { load?.stop() }
        return try body()
    }

    /// Runs `body` beside busy tasks when `busy`.
    static func around<R>(
        busy: Bool, isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> R
    ) async rethrows -> R {
        let load = busy ? BusyTasks() : nil
        defer { load?.stop() }
        return try await body()
    }
}
