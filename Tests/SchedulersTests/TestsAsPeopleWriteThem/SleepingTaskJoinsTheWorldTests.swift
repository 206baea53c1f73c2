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
                            ticks.withLock { $0 += Scheduler.current === scheduler ? 1 : 100 }
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
        let (wrong, example) = Self.wrongRunsDrivenSynchronously(busy: busy) { scheduler, tick in
            Task.detached {
                for _ in 0..<3 {
                    try await scheduler.sleep(for: .seconds(1))
                    tick()
                }
            }
        }
        #expect(wrong == 0, "\(example ?? "")")
    }

    /// The wake-up can come before the task awaits: the test's `advance` runs it while the
    /// task, on its own thread, is between arming and awaiting. The task then goes on past its
    /// `await` where it is and hops onto the scheduler, and the drive that ran the wake-up must
    /// still run it on before it returns. Rare by timing (a CI run saw it once in 1,000 busy
    /// runs: the wake-up let its drive go on before the hop was queued, and the tick came a
    /// drive late), so a DEBUG seam holds every run's task there.
    @Test func aWakeUpBeforeTheTaskAwaitsStillRunsItOnInThatDrive() {
        let (wrong, example) = Self.wrongRunsDrivenSynchronously(busy: false, wakeUpFirst: true) { scheduler, tick in
            Task.detached {
                for _ in 0..<3 {
                    try await scheduler.sleep(for: .seconds(1))
                    tick()
                }
            }
        }
        #expect(wrong == 0, "\(example ?? "")")
    }

    /// The same with a timer's loop: each tick's drive runs the loop's body.
    @Test(arguments: [false, true]) func aTimerLoopInADetachedTaskIsExact(busy: Bool) {
        let (wrong, example) = Self.wrongRunsDrivenSynchronously(busy: busy) { scheduler, tick in
            Task.detached {
                for await _ in scheduler.timer(every: .seconds(1)).prefix(3) { tick() }
            }
        }
        #expect(wrong == 0, "\(example ?? "")")
    }

    /// How many of ``runs`` runs went wrong, and what the first one saw: `start` starts a task
    /// that waits on the scheduler three times, one second apart, calling `tick` after each
    /// wait; the test drives with the synchronous `advance` from its own thread and checks the
    /// ticks after each drive. A tick
    /// counts only in the drive that woke it, whichever thread armed the wake-up. With
    /// `wakeUpFirst`, the task's first sleep waits after arming until the drive has run its
    /// wake-up (bounded, so that a regression fails rather than hangs; microseconds when right).
    private static func wrongRunsDrivenSynchronously(
        busy: Bool, wakeUpFirst: Bool = false, start: @escaping (TestScheduler, _ tick: @escaping @Sendable () -> Void) -> Task<Void, any Error>
    ) -> (wrong: Int, example: String?) {
        var wrong = 0
        var example: String?
        BusyTasks.around(busy: busy) {
            for _ in 0..<runs {
                let scheduler = TestScheduler()
                let ticks = Locked(0)
                if wakeUpFirst {
                    AdoptedWakeUp.setAfterArmingForTests({ [weak scheduler] in
                        let deadline = ContinuousClock.now + .seconds(10)
                        while scheduler?.rejoiningTask.load(ordering: .relaxed) == 0, ContinuousClock.now < deadline {
                            sched_yield()
                        }
                    }, for: scheduler)
                }
                defer { if wakeUpFirst { AdoptedWakeUp.setAfterArmingForTests(nil, for: scheduler) } }
                let (seen, warnings) = Warning.capture(about: scheduler) { () -> [Int] in
                    let task = start(scheduler) {
                        ticks.withLock { $0 += Scheduler.current === scheduler ? 1 : 100 }
                    }
                    var seen: [Int] = []
                    for _ in 1...3 {
                        waitUntil { scheduler.pendingCount == 1 }
                        scheduler.advance(by: 0.999)
                        seen.append(ticks.value)
                        scheduler.advance(by: 0.001)
                        seen.append(ticks.value)
                    }
                    _ = task
                    return seen
                }
                if seen != [0, 1, 1, 2, 2, 3] || !warnings.isEmpty {
                    wrong += 1
                    example = example ?? "ticks after each drive: \(seen), warnings: \(warnings)"
                }
            }
        }
        return (wrong, example)
    }

    /// Woken by a drive on another thread, a joined task goes on in that drive, on that thread,
    /// with the scheduler as `Scheduler.current`. (Detached: this suite's own tasks prefer the
    /// executor of `.ownThread`, and a task that prefers an executor keeps its preference.)
    @Test func aWokenTaskGoesOnInTheDriveThatWokeIt() async throws {
        let scheduler = TestScheduler()
        let task = Task.detached {
            try await scheduler.sleep(for: .seconds(1))
            return Scheduler.current === scheduler
        }
        // Outside every world, so a Thread: Dispatch work a world starts is the world's.
        let driver = Thread {
            waitUntil { scheduler.pendingCount == 1 }
            scheduler.advance(by: 1)
        }
        driver.start()
        #expect(try await task.value)
    }

    /// A `@MainActor` view model's task (SearchModel.swift) sleeping through `any Clock`, which
    /// passes no isolation: the sleep itself runs off the main actor, so the task joins for it,
    /// but its way back onto the main actor is not part of the drive (the runtime sends it to
    /// the main actor's queue directly). A synchronous `advance` that holds the main actor
    /// returns before the model is updated, every run, without a report; the update comes once
    /// the test lets go of the main actor. (Exact: a capture on the main actor, the contract's
    /// first shape, MainActorDrivingTests.)
    @MainActor @Test func aMainActorTaskGoesBackToTheMainActorAfterTheDrive() async {
        var early = 0
        for _ in 0..<stressCount(100) {
            let scheduler = TestScheduler()
            let model = SearchModel(clock: scheduler.clock)
            let (_, warnings) = await Warning.capture(about: scheduler) { () async in
                model.queryChanged("s")
                // It starts on the main actor, which this test holds: let it reach its sleep.
                while scheduler.pendingCount == 0 { await Task.yield() }
                scheduler.advance(by: 0.3)
                if model.results != [] { early += 1 }
                while model.results == [] { await Task.yield() }
            }
            #expect(warnings == [])
        }
        #expect(early == 0)
    }

    /// The tasks a joined task starts are not taken for it: they run where they would have.
    @Test func theTasksAJoinedTaskStartsStayWhereTheyRun() async throws {
        let scheduler = TestScheduler()
        let clock = scheduler.clock
        let task = Task {
            try await clock.sleep(for: .seconds(1))
            return await Task { Scheduler.current == nil }.value
        }
        while scheduler.pendingCount == 0 { await Task.yield() }
        await clock.advance(by: .seconds(1))
        #expect(try await task.value)
    }

    /// Its scheduler's only in that scheduler's drives: cancelled inside another scheduler's
    /// capture (whose hooks are installed, and whose rules take what its body enqueues), a
    /// joined task goes on where it is, and ends without any drive.
    @Test(arguments: [false, true]) func aJoinedTaskCancelledInsideAnotherCaptureIsNobodys(async: Bool) async {
        let scheduler = TestScheduler()
        let other = TestScheduler()
        let task = Task { () -> Bool in
            do {
                try await scheduler.clock.sleep(for: .seconds(1))
                return false
            } catch {
                return Scheduler.current == nil
            }
        }
        while scheduler.pendingCount == 0 { await Task.yield() }
        if async {
            await other.withCapturedTasks {
                task.cancel()
                await Task.yield()
            }
        } else {
            other.withCapturedTasks { task.cancel() }
        }
        #expect(await task.value)
        #expect(other.pendingCount == 0)
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
