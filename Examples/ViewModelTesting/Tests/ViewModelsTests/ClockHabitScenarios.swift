import Foundation
import Schedulers

/// Tests written the way swift-clocks' `TestClock` users write them, moved by changing the
/// clock line and wrapping the body in `await scheduler.withCapturedTasks { … }`: the body waits
/// for the work it starts (a `Task.yield()` loop, a task's `value`, `async let`, a stream, an
/// actor call). None may hang, and each must give the same result every run.
@MainActor enum ClockHabitScenarios {
    /// The contract's example: a yield loop waiting for a task to begin, a sleep until now.
    static func startsThenSleeps() async -> Bool {
        let scheduler = TestScheduler()
        let clock = scheduler.clock
        return await scheduler.withCapturedTasks {
            let started = Flag()
            let task = Task {
                started.set()
                try? await clock.sleep(for: .seconds(1))
                return 42
            }
            while !started.isSet { await Task.yield() }
            try? await clock.sleep(until: clock.now)
            await clock.advance(by: .seconds(1))
            let value = await task.value
            return value == 42 && scheduler.pendingCount == 0
        }
    }

    /// `async let`, and a stream fed and finished by a captured task.
    static func asyncLetAndStream() async -> Bool {
        let scheduler = TestScheduler()
        let clock = scheduler.clock
        return await scheduler.withCapturedTasks {
            let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
            Task {
                for index in 0..<3 {
                    try? await clock.sleep(for: .seconds(1))
                    continuation.yield(index)
                }
                continuation.finish()
            }
            async let doubled = { () async -> Int in
                try? await clock.sleep(for: .milliseconds(500))
                return 2
            }()
            await clock.advance(by: .seconds(3))
            var received: [Int] = []
            for await value in stream { received.append(value) }
            let value = await doubled
            return received == [0, 1, 2] && value == 2
        }
    }

    /// A model isolated to an actor, called back to back, then advanced.
    static func actorModel() async -> Bool {
        let scheduler = TestScheduler()
        let engine = DebouncingEngine(clock: scheduler.clock)
        return await scheduler.withCapturedTasks {
            await engine.queryChanged("s")
            await engine.queryChanged("sw")
            await scheduler.clock.advance(by: .milliseconds(299))
            let early = await engine.results == []
            await scheduler.clock.advance(by: .milliseconds(1))
            let results = await engine.results
            let searches = await engine.searches
            return early && results == ["sw"] && searches == 1
        }
    }
}

/// A search engine isolated to an actor: it debounces queries on the injected clock.
actor DebouncingEngine {
    private(set) var results: [String] = []
    private(set) var searches = 0
    private var search: Task<Void, Never>?
    private let clock: any Clock<Duration>

    init(clock: any Clock<Duration>) { self.clock = clock }

    func queryChanged(_ query: String) {
        search?.cancel()
        search = Task {
            do { try await clock.sleep(for: .milliseconds(300)) } catch { return }
            searches += 1
            results = [query]
        }
    }
}

/// A flag set from any task.
nonisolated final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false

    var isSet: Bool { lock.withLock { value } }

    func set() { lock.withLock { value = true } }
}
