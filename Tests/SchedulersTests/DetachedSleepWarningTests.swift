import Foundation
@testable import Schedulers
import Testing
import TestSupport

/// A task sleeping on a TestScheduler while its jobs run on an executor it prefers gets one
/// warning per scheduler (counted through an internal seam, and captured, so the run prints
/// none); tasks that run on the scheduler get none, and a task outside every world joins the
/// scheduler's instead (SleepingTaskJoinsTheWorldTests).
@Suite(.ownThread, .timeLimit(.minutes(5))) struct DetachedSleepWarningTests {
    /// An executor of its own, which the sleeping tasks prefer.
    private static let elsewhere = QueueScheduler(name: "elsewhere", queue: DispatchQueue(label: "elsewhere"))

    /// Runs `body` in a task that prefers another executor, cancelled so that its sleep ends at
    /// once instead of waiting for a scheduler nobody drives.
    private func onAnotherExecutor(_ body: @escaping @Sendable () async throws -> Void) async {
        let task = Task(executorPreference: Self.elsewhere) { try await body() }
        task.cancel()
        _ = await task.result
    }

    @Test func sleepingOnAnotherExecutorWarnsOncePerScheduler() async {
        let scheduler = TestScheduler()
        #expect(DetachedSleepWarning.printCount(for: scheduler) == 0)
        let (_, warnings) = await Warning.capture(about: scheduler) {
            await onAnotherExecutor { try await scheduler.sleep(for: .seconds(1)) }
            #expect(DetachedSleepWarning.printCount(for: scheduler) == 1)
            await onAnotherExecutor { try await Task.sleep(for: .seconds(1), clock: scheduler.clock) }
            await onAnotherExecutor { try await scheduler.sleep(until: Date(timeIntervalSinceReferenceDate: 1)) }
            await onAnotherExecutor {
                var iterator = scheduler.timer(every: .seconds(1)).makeAsyncIterator()
                _ = await iterator.next()
            }
        }
        #expect(DetachedSleepWarning.printCount(for: scheduler) == 1)
        #expect(warnings.count == 1)
        let message = warnings.first ?? ""
        #expect(message.hasPrefix(
            "Schedulers warning: a task called sleep(for:) on \(scheduler) while running outside it, on the executor it prefers;"))
        #expect(message.contains("its timing cannot be deterministic"))
        #expect(message.contains("Task(executorPreference: scheduler)"))

        let other = TestScheduler()
        let (_, otherWarnings) = await Warning.capture(about: other) {
            await onAnotherExecutor {
                for await _ in other.timer(every: .seconds(1)) {}
            }
        }
        #expect(DetachedSleepWarning.printCount(for: other) == 1)
        #expect(otherWarnings.count == 1)
        #expect(otherWarnings.first?.hasPrefix(
            "Schedulers warning: a task called timer(every:leeway:)'s next() on \(other) while running outside it, on the executor it prefers;") == true)
    }

    @Test func tasksRunningOnTheSchedulerDoNotWarn() {
        let scheduler = TestScheduler()
        let done = Locked(0)
        @Sendable func sleepEveryWay() async throws {
            try await scheduler.sleep(for: .seconds(1))
            try await Task.sleep(for: .seconds(1), clock: scheduler.clock)
            try await scheduler.sleep(until: Date(timeIntervalSinceReferenceDate: 3))
            for await _ in scheduler.timer(every: .seconds(1)) { break }
            done.withLock { $0 += 1 }
        }
        Task(executorPreference: scheduler) { try await sleepEveryWay() }
        scheduler.advance(by: 4)
        scheduler.withCapturedTasks {
            Task { try await sleepEveryWay() }
            Task.detached { try await sleepEveryWay() }
            scheduler.advance(by: 4)
        }
        #expect(done.value == 3)
        #expect(DetachedSleepWarning.printCount(for: scheduler) == 0)
    }

    /// A captured task that awaits an actor the world does not run (here one on a queue
    /// scheduler's executor, as an actor shared with work outside the test is run by that
    /// work's thread) sleeps from there: the warning names the actor, not a callback.
    @Test func aCapturedTaskRunOnByAnActorOutsideTheWorldIsToldTheActorIsTheCause() async {
        let scheduler = TestScheduler()
        let outside = ActorOutsideTheWorld()
        let (_, warnings) = await Warning.capture(about: scheduler) {
            captureSynchronously(scheduler) {
                Task { await outside.sleep(on: scheduler.clock) }
                scheduler.advance(by: 0)
            }
            #expect(await waitUntilOffPool { DetachedSleepWarning.printCount(for: scheduler) == 1 })
            scheduler.advance(by: 1)
        }
        #expect(warnings.count == 1)
        #expect(warnings.first?.hasPrefix(
            "Schedulers warning: a task called clock.sleep(for:tolerance:) on \(scheduler) while running outside it, on an actor's executor;") == true)
        #expect(warnings.first?.contains("after leaving withCapturedTasks") == false)
    }

    /// The synchronous form inside an async test: Swift prefers the async overload there.
    private func captureSynchronously(_ scheduler: TestScheduler, _ body: () -> Void) {
        scheduler.withCapturedTasks(body)
    }
}

/// An actor on an executor of its own, which no test scheduler runs.
private actor ActorOutsideTheWorld {
    private let queue = QueueScheduler(name: "outside the world", queue: DispatchQueue(label: "outside the world"))

    nonisolated var unownedExecutor: UnownedSerialExecutor {
        queue.asUnownedSerialExecutor()
    }

    func sleep(on clock: TestScheduler.Clock) async {
        try? await clock.sleep(for: .seconds(1))
    }
}
