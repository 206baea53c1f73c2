import Foundation
import Schedulers
import ViewModels

/// Code that injects no clock: a view model that calls `Task.sleep(for:)` directly, driven by
/// hand, and a retry client whose backoff sleeps on the real clock, tested with automatic
/// advance (time jumps to the next due work whenever the captured world is idle).
@MainActor enum TimeNotInjectedScenarios {
    static func refreshAfterAPause() async -> Bool {
        let scheduler = TestScheduler()
        let model = RefreshModel(load: { ["a", "b"] })
        return await scheduler.withCapturedTasks {
            model.refresh()
            await scheduler.clock.advance(by: .milliseconds(200))
            model.refresh()   // restarts the 300 ms
            await scheduler.clock.advance(by: .milliseconds(299))
            let early = model.items == [] && model.loads == 0
            await scheduler.clock.advance(by: .milliseconds(1))
            return early && model.items == ["a", "b"] && model.loads == 1 && scheduler.pendingCount == 0
        }
    }

    /// A flaky backend (an actor of its own) failing its first `failures` calls.
    actor Flaky {
        struct Unavailable: Error {}
        private var failures: Int
        private(set) var calls = 0

        init(failures: Int) {
            self.failures = failures
        }

        func call() throws -> Int {
            calls += 1
            if failures > 0 {
                failures -= 1
                throw Unavailable()
            }
            return 42
        }
    }

    static func retryWithAutomaticAdvance() async -> Bool {
        let scheduler = TestScheduler()
        let backend = Flaky(failures: 3)
        let client = RetryClient { try await backend.call() }
        let start = scheduler.clock.now
        let value = try? await scheduler.withCapturedTasks(advancing: .automatically) {
            try await client.fetch()
        }
        let calls = await backend.calls
        return value == 42 && calls == 4 && start.duration(to: scheduler.clock.now) == .seconds(7)
    }

    static func giveUpWithAutomaticAdvance() async -> Bool {
        let scheduler = TestScheduler()
        let backend = Flaky(failures: 10)
        let client = RetryClient { try await backend.call() }
        let start = scheduler.clock.now
        let outcome: String
        do {
            _ = try await scheduler.withCapturedTasks(advancing: .automatically) { try await client.fetch() }
            outcome = "value"
        } catch {
            outcome = "\(type(of: error))"
        }
        return outcome == "Unavailable" && start.duration(to: scheduler.clock.now) == .seconds(7)
    }
}
