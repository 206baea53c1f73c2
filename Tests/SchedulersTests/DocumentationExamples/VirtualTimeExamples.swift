import Foundation
import Schedulers
import Testing
import TestSupport

// The code of the "Testing with virtual time" article (TestingWithVirtualTime.md). The examples
// that use `TestScheduler.withCapturedTasks(_:)` are in CapturedTasksExamples.swift.

// The code under test. It takes any `Scheduler`, so production passes a queue scheduler
// and the test a `TestScheduler`.
// snippet: virtual-time-start-timeout
/// Calls `onTimeout` after `seconds` on `scheduler`, unless the returned
/// disposable is disposed first.
@discardableResult
func startTimeout(
    _ seconds: TimeInterval, on scheduler: Scheduler,
    onTimeout: @escaping @Sendable () -> Void
) -> (any Disposable)? {
    scheduler.schedule(afterDelay: seconds, onTimeout)
}
// snippet: end

@Suite(.ownThread, .timeLimit(.minutes(5))) struct VirtualTimeExamples {
    /// Synchronous code: a timeout, exactly on time, in microseconds of real time.
    // snippet: virtual-time-timeout-test
    @Test func timesOutAfterTenSecondsOfVirtualTime() {
        let scheduler = TestScheduler()
        // A plain variable is safe: a TestScheduler runs actions on the thread
        // that drives it.
        nonisolated(unsafe) var timedOut = false
        startTimeout(10, on: scheduler) { timedOut = true }

        scheduler.advance(by: 9.999)
        #expect(!timedOut)          // not a moment early
        scheduler.advance(by: 0.001)
        #expect(timedOut)           // exactly on time

        let cancelled = startTimeout(10, on: scheduler) {
            Issue.record("fired after dispose")
        }
        cancelled?.dispose()
        scheduler.advance(by: 60)   // a disposed action never runs
    }
    // snippet: end

    /// Stepping: one action at a time, whatever its date.
    @Test func steppingRunsOneActionAtATime() {
        let scheduler = TestScheduler()
        nonisolated(unsafe) var log: [String] = []
        scheduler.schedule(afterDelay: 5) { log.append("b") }
        scheduler.schedule { log.append("a") }
        scheduler.schedule(afterDelay: 5) { log.append("c") }   // same date as "b": after it

        scheduler.step()
        #expect(log == ["a"])
        #expect(scheduler.now == Date(timeIntervalSinceReferenceDate: 0))
        scheduler.step()
        #expect(log == ["a", "b"])
        #expect(scheduler.now == Date(timeIntervalSinceReferenceDate: 5))   // moved to b's date
        scheduler.stepAll()
        #expect(log == ["a", "b", "c"])
    }

    /// async/await: a task that prefers the scheduler and sleeps on its clock has finished when
    /// `advance` returns.
    // snippet: virtual-time-async
    @Test func retriesAfterFiveSeconds() {
        let scheduler = TestScheduler()
        // Safe: the task's jobs run on this thread, inside advance.
        nonisolated(unsafe) var done = false
        Task(executorPreference: scheduler) {
            // Or: try await scheduler.sleep(for: .seconds(5))
            try await Task.sleep(for: .seconds(5), clock: scheduler.clock)
            done = true
        }
        scheduler.advance(by: 4)
        #expect(!done)
        scheduler.advance(by: 1)
        #expect(done)                          // finished inside advance(by:)
        #expect(scheduler.pendingCount == 0)
    }
    // snippet: end

    /// async/await: a timer sequence ticks in virtual time, once per interval.
    @Test func aTimerTicksInVirtualTime() {
        let scheduler = TestScheduler()
        nonisolated(unsafe) var ticks: [Date] = []
        // snippet: virtual-time-timer
        Task(executorPreference: scheduler) {
            for await date in scheduler.timer(every: .seconds(1)) {
                ticks.append(date)
                if ticks.count == 3 { break }   // ends the loop and the timer
            }
        }
        scheduler.advance(by: 10)   // ticks at 1, 2 and 3 s of virtual time
        // snippet: end
        #expect(ticks.map(\.timeIntervalSinceReferenceDate) == [1, 2, 3])
        #expect(scheduler.pendingCount == 0)
    }

    /// Cancellation: cancelling a sleeping task throws at once and leaves nothing pending.
    @Test func cancellingASleepingTask() {
        let scheduler = TestScheduler()
        nonisolated(unsafe) var outcome: String?
        let task = Task(executorPreference: scheduler) {
            do {
                try await scheduler.sleep(for: .seconds(60))
                outcome = "woke"
            } catch {
                outcome = "cancelled"
            }
        }
        scheduler.advance(by: 1)
        task.cancel()
        scheduler.advance(by: 0)   // runs the task's next job: the catch
        #expect(outcome == "cancelled")
        #expect(scheduler.pendingCount == 0)
    }

    /// `withCapturedTasks`: a plain `Task {}`, as the code under test would start it, runs in
    /// virtual time.
    @Test func aCapturedPlainTask() {
        // snippet: virtual-time-captured-tasks
        let scheduler = TestScheduler()
        nonisolated(unsafe) var done = false
        scheduler.withCapturedTasks {
            Task {   // a plain Task, as the code under test would start it
                try await Task.sleep(for: .seconds(5), clock: scheduler.clock)
                done = true
            }
            scheduler.advance(by: 4.999)
            #expect(!done)
            scheduler.advance(by: 0.001)
            #expect(done)
        }
        // snippet: end
        #expect(scheduler.pendingCount == 0)
    }
}
