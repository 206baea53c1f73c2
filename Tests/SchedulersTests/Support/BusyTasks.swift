/// Unrelated work beside a test's runs: a few detached tasks that keep the cooperative pool
/// busy until ``stop()``, which is where a test that is exact only usually shows it.
final class BusyTasks: Sendable {
    private let stopped = Locked(false)

    init(tasks: Int = 4) {
        for _ in 0..<tasks {
            Task.detached { [stopped] in
                var sum = 0
                while !stopped.value {
                    for value in 0..<1_000 { sum &+= value }
                    await Task.yield()
                }
                _ = sum
            }
        }
    }

    func stop() { stopped.withLock { $0 = true } }

    /// Runs `body` beside busy tasks if `busy`, quietly otherwise.
    static func around<R>(_ busy: Bool, _ body: () throws -> R) rethrows -> R {
        let load = busy ? BusyTasks() : nil
        defer { load?.stop() }
        return try body()
    }

    /// Runs the asynchronous `body` beside busy tasks if `busy`, quietly otherwise.
    static func around<R>(
        _ busy: Bool, isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> R
    ) async rethrows -> R {
        let load = busy ? BusyTasks() : nil
        defer { load?.stop() }
        return try await body()
    }
}
