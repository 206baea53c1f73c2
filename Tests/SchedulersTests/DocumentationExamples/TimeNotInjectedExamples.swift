import Dispatch
import Foundation
import Schedulers
import Testing
import TestSupport

// The code of "Code that does not inject a clock" and "Time that moves by itself"
// (TestingWithVirtualTime.md) and of the swift-clocks article's rewrite of a TestClock test
// (MigratingFromSwiftClocks.md), as snippet regions inside tests that assert what they say.

/// A backend that fails its first `failures` calls, then answers 42.
actor FlakyBackend {
    struct Unavailable: Error {}
    private var failures: Int

    init(failures: Int) {
        self.failures = failures
    }

    func fetch() throws -> Int {
        if failures > 0 {
            failures -= 1
            throw Unavailable()
        }
        return 42
    }
}

/// Exact in every run, under the sanitizers too: the real clocks read virtual time in the world.
@Suite(.ownThread, .timeLimit(.minutes(5))) struct TimeNotInjectedExamples {
    typealias Loader = ClockMigrationExamples.Loader

    // snippet: real-clock-feed-model
    // Code as apps write it: no clock injected.
    @MainActor final class FeedModel {
        var items: [String] = []
        let load: @Sendable () async -> [String]
        init(load: @escaping @Sendable () async -> [String]) {
            self.load = load
        }
        func refresh() {
            Task {
                // The real clock's sleep:
                try? await Task.sleep(for: .milliseconds(300))
                items = await load()
            }
        }
    }

    @MainActor @Test func refreshes() async {
        let scheduler = TestScheduler()
        let model = FeedModel(load: { ["a"] })
        await scheduler.withCapturedTasks {
            model.refresh()
            await scheduler.clock.advance(by: .milliseconds(299))
            #expect(model.items == [])
            await scheduler.clock.advance(by: .milliseconds(1))
            #expect(model.items == ["a"])   // exactly 300 ms later
        }
    }
    // snippet: end

    // snippet: automatic-advance-retry
    // App code, as written: a retry with backoff on the real clock.
    func fetchWithRetry(attempts: Int) async throws -> Int {
        let backend = FlakyBackend(failures: 3)
        var delay = Duration.seconds(1)
        for attempt in 1...attempts {
            do {
                return try await backend.fetch()
            } catch where attempt < attempts {
                try await Task.sleep(for: delay)
                delay *= 2
            }
        }
        throw FlakyBackend.Unavailable()
    }

    @Test func retriesWithBackoff() async throws {
        let scheduler = TestScheduler()
        let start = scheduler.clock.now
        let value = try await scheduler.withCapturedTasks(
            advancing: .automatically
        ) {
            // fails 3 times, sleeping 1, 2, 4 s between
            try await fetchWithRetry(attempts: 4)
        }
        #expect(value == 42)
        #expect(start.duration(to: scheduler.clock.now) == .seconds(7))
    }
    // snippet: end

    /// A backend that answers on a Dispatch queue does not hold time back; a stub that
    /// completes on the scheduler does.
    @Test func aStubThatCompletesOnTheScheduler() async throws {
        // snippet: automatic-advance-stub
        // The real backend answers from the network, outside virtual
        // time: while its answer is on its way, time would move on. A
        // stub that takes its latency on the scheduler's clock is exact.
        struct StubBackend: Sendable {
            let clock: any Clock<Duration>
            func fetch() async throws -> [String] {
                // The latency, in virtual time:
                try await clock.sleep(for: .milliseconds(80))
                return ["a", "b"]
            }
        }

        let scheduler = TestScheduler()
        let backend = StubBackend(clock: scheduler.clock)
        let start = scheduler.clock.now
        let (items, arrived) = try await scheduler.withCapturedTasks(
            advancing: .automatically
        ) {
            // Pending meanwhile:
            let timeout = Task { try await Task.sleep(for: .seconds(1)) }
            let items = try await backend.fetch()
            timeout.cancel()
            return (items, start.duration(to: scheduler.clock.now))
        }
        #expect(items == ["a", "b"])
        #expect(arrived == .milliseconds(80))   // not 1 s: time waited for the stub
        // snippet: end
    }

    /// The swift-clocks article's loader on the real clock, tested both ways.
    // snippet: migrating-clocks-real-loader
    @MainActor final class RealClockLoader {
        private(set) var attempts = 0
        private(set) var loaded = false
        private let fails: Int

        init(failingFirst fails: Int) {
            self.fails = fails
        }

        func load() async {
            var delay = Duration.seconds(1)
            while attempts < fails {   // failing requests
                attempts += 1
                try? await Task.sleep(for: delay)   // no clock injected
                delay *= 2
            }
            attempts += 1
            loaded = true
        }
    }
    // snippet: end

    @MainActor @Test func aTestClockTestWithoutTheClock() async {
        // snippet: migrating-clocks-real-advance
        let scheduler = TestScheduler()
        let loader = RealClockLoader(failingFirst: 2)
        await scheduler.withCapturedTasks {
            Task { await loader.load() }
            await scheduler.clock.advance(by: .milliseconds(999))
            #expect(loader.attempts == 1)
            await scheduler.clock.advance(by: .milliseconds(1))
            #expect(loader.attempts == 2)     // retried at 1 s of virtual time
            await scheduler.clock.advance(by: .seconds(2))
            #expect(loader.loaded)            // and at 1 + 2 s
        }
        // snippet: end
    }

    @MainActor @Test func aTestClockTestWithoutAdvancing() async {
        // snippet: migrating-clocks-automatic
        let scheduler = TestScheduler()
        let loader = Loader(clock: scheduler.clock, failingFirst: 3)
        let start = scheduler.clock.now
        await scheduler.withCapturedTasks(advancing: .automatically) {
            await loader.load()   // no advance, no run(): time moves itself
        }
        #expect(loader.loaded)
        #expect(loader.attempts == 4)
        let spent = start.duration(to: scheduler.clock.now)
        #expect(spent == .seconds(7))  // 1 + 2 + 4
        // snippet: end
    }
}
