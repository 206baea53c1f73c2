import Foundation
@testable import Schedulers
import Testing
import TestSupport

/// The `TestClock` habit, exact: a task started outside any capture that sleeps on a
/// `TestScheduler` joins its world, and the drive that wakes it runs it on to its next
/// suspension before it returns. No capture, no yield after the advance, no report.
@Suite(.ownThread, .timeLimit(.minutes(5))) struct SleepingTaskJoinsTheWorldTests {
    static let runs = stressCount(1_000)

    @Test(arguments: [false, true]) func theClockHabitIsExact(busy: Bool) async {
        var wrong = 0
        var warnings: [String] = []
        await BusyTasks.around(busy: busy) {
            for _ in 0..<Self.runs {
                let scheduler = TestScheduler()
                let clock = scheduler.clock
                let ticks = Locked(0)
                let (exact, captured) = await Warning.capture(about: scheduler) { () async -> Bool in
                    let task = Task {
                        for _ in 0..<3 {
                            try await clock.sleep(for: .seconds(1))
                            ticks.withLock { $0 += 1 }
                        }
                    }
                    // The task must have armed its first sleep before the test advances.
                    while scheduler.pendingCount == 0 { await Task.yield() }
                    var exact = true
                    for expected in 1...3 {
                        await clock.advance(by: .milliseconds(999))
                        exact = exact && ticks.value == expected - 1
                        await clock.advance(by: .milliseconds(1))
                        exact = exact && ticks.value == expected
                    }
                    if case .failure = await task.result { exact = false }
                    return exact
                }
                if !exact { wrong += 1 }
                warnings += captured
            }
        }
        #expect(wrong == 0)
        #expect(warnings == [])
    }

    /// The same from a detached task, driven by the synchronous `advance`.
    @Test(arguments: [false, true]) func aDetachedTaskWithTheSynchronousAdvance(busy: Bool) {
        var wrong = 0
        BusyTasks.around(busy: busy) {
            for _ in 0..<Self.runs {
                let scheduler = TestScheduler()
                let ticks = Locked(0)
                let (exact, warnings) = Warning.capture(about: scheduler) { () -> Bool in
                    let task = Task.detached {
                        for _ in 0..<3 {
                            try await scheduler.sleep(for: .seconds(1))
                            ticks.withLock { $0 += 1 }
                        }
                    }
                    waitUntil { scheduler.pendingCount == 1 }
                    var exact = true
                    for expected in 1...3 {
                        scheduler.advance(by: 0.999)
                        exact = exact && ticks.value == expected - 1
                        scheduler.advance(by: 0.001)
                        exact = exact && ticks.value == expected
                    }
                    _ = task
                    return exact
                }
                if !exact || !warnings.isEmpty { wrong += 1 }
            }
        }
        #expect(wrong == 0)
    }

    /// Only to its next suspension: after the run that a drive gave it, a task that waits for
    /// something else goes on where that resumes it, not in a drive nobody makes.
    @Test func aJoinedTaskLeavesAtItsNextSuspension() async throws {
        let scheduler = TestScheduler()
        let clock = scheduler.clock
        let gate = AsyncGate()
        let task = Task {
            try await clock.sleep(for: .seconds(1))
            await gate.wait()          // resumed from a Dispatch thread below
            return Scheduler.current == nil
        }
        while scheduler.pendingCount == 0 { await Task.yield() }
        await clock.advance(by: .seconds(1))
        DispatchQueue.global().async { gate.open() }
        #expect(try await task.value)
    }
}

/// A one-shot gate a task awaits and any thread opens.
final class AsyncGate: Sendable {
    private let state = Locked<(open: Bool, waiter: CheckedContinuation<Void, Never>?)>((false, nil))

    func wait() async {
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let resume = state.withLock { state -> Bool in
                if state.open { return true }
                state.waiter = waiter
                return false
            }
            if resume { waiter.resume() }
        }
    }

    func open() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.open = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }
}
