import Foundation

/// Runs a scenario many times and counts the wrong runs, quietly or beside busy unrelated tasks
/// (detached tasks that keep the cooperative pool working until the runs are over), which is
/// where a test that is exact only usually shows it.
enum Repetition {
    static let runs = 1_000

    /// Unrelated work: a few detached tasks spinning until `stop` is set.
    final class Busy: @unchecked Sendable {
        private let lock = NSLock()
        private var stopped = false

        init(tasks: Int = 4) {
            for _ in 0..<tasks {
                Task.detached { [self] in
                    var sum = 0
                    while !isStopped {
                        for value in 0..<1_000 { sum &+= value }
                        await Task.yield()
                    }
                    _ = sum
                }
            }
        }

        var isStopped: Bool {
            lock.lock()
            defer { lock.unlock() }
            return stopped
        }

        func stop() {
            lock.lock()
            stopped = true
            lock.unlock()
        }
    }

    /// How many of `runs` runs of `scenario` were wrong.
    @MainActor static func wrongRuns(busy: Bool, _ scenario: () -> Bool) -> Int {
        let load = busy ? Busy() : nil
        defer { load?.stop() }
        var wrong = 0
        for _ in 0..<runs where !scenario() { wrong += 1 }
        return wrong
    }

    /// How many of `runs` runs of the asynchronous `scenario` were wrong.
    @MainActor static func wrongRuns(busy: Bool, _ scenario: () async -> Bool) async -> Int {
        let load = busy ? Busy() : nil
        defer { load?.stop() }
        var wrong = 0
        for _ in 0..<runs where !(await scenario()) { wrong += 1 }
        return wrong
    }
}
