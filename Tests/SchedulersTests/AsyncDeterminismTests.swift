import Foundation
import Schedulers
import Testing
import TestSupport

/// Async code on a `TestScheduler` (as task executor and clock) is deterministic: when
/// `advance` returns, everything due by then has happened, with no `Task.yield` anywhere.
@Suite(.ownThread, .timeLimit(.minutes(5))) struct AsyncDeterminismTests {
    /// The README example, ten thousand times: never a flake.
    @Test func aTaskSleepingFiveSecondsHasFinishedWhenAdvanceByFiveReturns() {
        var failures = 0
        for _ in 0..<10_000 {
            let scheduler = TestScheduler()
            let done = Locked(false)
            Task(executorPreference: scheduler) {
                try await Task.sleep(for: .seconds(5), clock: scheduler.clock)
                done.withLock { $0 = true }
            }
            scheduler.advance(by: 4)
            let early = done.value
            scheduler.advance(by: 1)
            if early || !done.value || scheduler.pendingCount != 0 { failures += 1 }
        }
        #expect(failures == 0)
    }

    /// Debounce with async/await: each keystroke cancels the pending search and starts one that
    /// waits a second of quiet.
    @Test func debounce() {
        let scheduler = TestScheduler()
        let searches = Locked<[String]>([])
        let pending = Locked<Task<Void, Never>?>(nil)
        func type(_ query: String) {
            let search = Task(executorPreference: scheduler) {
                do { try await scheduler.sleep(for: .seconds(1)) } catch { return }
                searches.withLock { $0.append(query) }
            }
            pending.withLock { pending -> Task<Void, Never>? in
                defer { pending = search }
                return pending
            }?.cancel()
        }

        type("s")
        scheduler.advance(by: 0.5)
        type("sw")
        scheduler.advance(by: 0.5)  // "s" would have fired now
        type("swi")
        scheduler.advance(by: 0.75)
        #expect(searches.value.isEmpty)
        scheduler.advance(by: 0.25)
        #expect(searches.value == ["swi"])
        #expect(scheduler.pendingCount == 0)
    }

    /// Timeout with async/await: a task group races the operation against a sleep.
    @Test func timeoutFiresWhenTheOperationIsSlower() {
        let scheduler = TestScheduler()
        let outcome = Locked<Result<String, any Error>?>(nil)
        Task(executorPreference: scheduler) {
            let result = await Result(awaiting: {
                try await withTimeout(.seconds(3), on: scheduler) {
                    try await scheduler.sleep(for: .seconds(10))
                    return "response"
                }
            })
            outcome.withLock { $0 = result }
        }
        scheduler.advance(by: 2)
        #expect(outcome.value == nil)
        scheduler.advance(by: 1)
        #expect(throws: OperationTimedOut.self) { try outcome.value?.get() }
        // The slow operation's wake-up was disposed, not left pending.
        #expect(scheduler.pendingCount == 0)
        #expect(scheduler.now == Date(timeIntervalSinceReferenceDate: 3))
    }

    @Test func timeoutDoesNotFireWhenTheOperationIsFaster() throws {
        let scheduler = TestScheduler()
        let outcome = Locked<Result<String, any Error>?>(nil)
        Task(executorPreference: scheduler) {
            let result = await Result(awaiting: {
                try await withTimeout(.seconds(3), on: scheduler) {
                    try await scheduler.sleep(for: .seconds(2))
                    return "response"
                }
            })
            outcome.withLock { $0 = result }
        }
        scheduler.advance(by: 2)
        #expect(try outcome.value?.get() == "response")
        #expect(scheduler.pendingCount == 0)
    }
}

private struct OperationTimedOut: Error {}

/// Runs `operation`, throwing `OperationTimedOut` if it takes longer than `timeout` on `scheduler`.
private func withTimeout<Value: Sendable>(
    _ timeout: Duration, on scheduler: Scheduler, _ operation: @escaping @Sendable () async throws -> Value
) async throws -> Value {
    try await withThrowingTaskGroup(of: Value.self) { group in
        group.addTask { try await operation() }
        group.addTask {
            try await scheduler.sleep(for: timeout)
            throw OperationTimedOut()
        }
        defer { group.cancelAll() }
        return try await group.next()!
    }
}

extension Result where Failure == any Error {
    fileprivate init(awaiting body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}
