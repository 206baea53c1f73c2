@_spi(SchedulersInternal) import Disposables
import Foundation
import Schedulers
import Synchronization
import Testing

/// A thread-safe value shared between a scenario's tasks and the test.
final class Locked<Value: Sendable>: Sendable {
    private let lock: Lock<Value>

    init(_ value: Value) {
        lock = Lock(value)
    }

    var value: Value {
        lock.withLock { $0 }
    }

    func withLock<Result: Sendable>(_ body: (inout Value) -> Result) -> Result {
        lock.withLock { body(&$0) }
    }

    func append<Element>(_ element: Element) where Value == [Element] {
        lock.withLock { $0.append(element) }
    }
}

/// What else runs on the machine while a scenario repeats.
enum Load: String, CaseIterable, Sendable, CustomTestStringConvertible {
    /// Nothing of ours.
    case quiet
    /// Unrelated tasks spinning and yielding on the global pool all along.
    case busy

    var testDescription: String { rawValue }
}

/// Unrelated tasks on the global concurrent pool, started outside any capture: they spin a
/// little, count, and yield, until stopped. Their count shows that they keep running while
/// scenarios capture the test thread's tasks.
final class BusyTasks: Sendable {
    private let progress = Atomic<Int>(0)
    private let stopped = Atomic<Bool>(false)
    private let tasks = Locked<[Task<Void, Never>]>([])

    init(count: Int = 2) {
        for _ in 0..<count {
            let task = Task.detached { [self] in
                var sink = 0
                while !self.stopped.load(ordering: .relaxed) {
                    for index in 0..<1_000 { sink &+= index }
                    self.progress.add(1, ordering: .relaxed)
                    await Task.yield()
                }
                _ = sink
            }
            tasks.append(task)
        }
    }

    var count: Int { progress.load(ordering: .relaxed) }

    /// Stops the tasks and waits for them.
    func stop() async {
        stopped.store(true, ordering: .relaxed)
        for task in tasks.value { await task.value }
    }
}

/// Runs `scenario` `runs` times, each on a new `TestScheduler` inside its `withCapturedTasks`,
/// beside busy unrelated tasks if `load` says so.
///
/// - Parameter scenario: Drives the scheduler and returns nil when everything happened exactly
///   as expected, else a description of what happened.
/// - Returns: The failures (at most the first ten descriptions, and their total count), and
///   whether the busy tasks made progress while the scenario repeated (always true when quiet).
func repeatScenario(
    _ load: Load, runs: Int = 1_000, _ scenario: (TestScheduler) -> String?
) async -> (failures: Int, examples: [String], busyProgressed: Bool) {
    let busy = load == .busy ? BusyTasks() : nil
    let before = busy?.count ?? 0
    var failures = 0
    var examples: [String] = []
    for _ in 0..<runs {
        let scheduler = TestScheduler()
        let outcome = scheduler.withCapturedTasks { scenario(scheduler) }
        // Anything left on the scheduler is a failure too (and would leak a task).
        let problem = outcome ?? (scheduler.pendingCount == 0 ? nil : "left \(scheduler.pendingCount) pending")
        if let problem {
            failures += 1
            if examples.count < 10 { examples.append(problem) }
        }
    }
    var progressed = true
    if let busy {
        // Counted while the scenarios ran: the busy tasks were never captured, and kept running
        // on the pool's other thread.
        progressed = busy.count > before
        await busy.stop()
    }
    return (failures, examples, progressed)
}

extension TestScheduler {
    /// Virtual seconds since the reference date: the scenarios start at 0.
    var seconds: Double { now.timeIntervalSinceReferenceDate }
}
