import Clocks
import ConcurrencyExtras
import Schedulers

/// Workload 10: a retry with exponential backoff, tested as written: four attempts against a
/// backend (an actor) that fails the first three, sleeping 1, 2 and 4 s between them, on an
/// injected clock. Ours: a `TestScheduler` inside `withCapturedTasks(advancing: .automatically)`,
/// which moves time by itself, so the test awaits the call and nothing else. Peer:
/// pointfreeco/swift-clocks' `TestClock` in its recommended pattern, inside
/// swift-concurrency-extras' `withMainSerialExecutor`, the call in a task, driven by
/// `await clock.run()`. Each run returns whether the value came back after exactly 7 s of
/// virtual time.
public enum RetryBackoffWorkload {
    /// Fails its first three calls.
    actor Backend {
        struct Unavailable: Error {}
        private var calls = 0

        func fetch() throws -> Int {
            calls += 1
            if calls <= 3 { throw Unavailable() }
            return 42
        }
    }

    /// The code under test.
    static func fetchWithRetry<C: Clock<Duration>>(from backend: Backend, clock: C) async throws -> Int {
        var delay = Duration.seconds(1)
        for attempt in 1...4 {
            do {
                return try await backend.fetch()
            } catch where attempt < 4 {
                try await clock.sleep(for: delay)
                delay *= 2
            }
        }
        throw Backend.Unavailable()
    }

    /// One run on our `TestScheduler`, advancing by itself. - Returns: whether it was exact.
    @MainActor
    public static func ours() async -> Bool {
        let scheduler = TestScheduler()
        let start = scheduler.clock.now
        let value = try? await scheduler.withCapturedTasks(advancing: .automatically) {
            try await fetchWithRetry(from: Backend(), clock: scheduler.clock)
        }
        return value == 42 && start.duration(to: scheduler.clock.now) == .seconds(7)
    }

    /// One run on swift-clocks' `TestClock`, in its recommended pattern. - Returns: whether it
    /// was exact.
    @MainActor
    public static func testClock() async -> Bool {
        let exact = AsyncDebounceWorkload.Log()
        await withMainSerialExecutor {
            let clock = TestClock()
            let start = clock.now
            let task = Task { try await fetchWithRetry(from: Backend(), clock: clock) }
            await clock.run()
            let value = try? await task.value
            if value == 42 && start.duration(to: clock.now) == .seconds(7) { exact.append(1, at: 0) }
        }
        return !exact.value.isEmpty
    }
}
