#if compiler(>=6.3) && os(Linux)  // where real-clock sleeps can be seen (RealClockSleepInterception.swift)
import Foundation
@testable import Schedulers
import Testing
import TestSupport

/// A task in a TestScheduler's virtual time that sleeps on a real clock gets one warning per
/// scheduler, naming the call and the fix; a task outside it sleeping at the same time gets none.
/// The sleeps are short and real; each one's wake-up then waits on the scheduler, so the task
/// stays in virtual time and goes on at the next drive, however the real time falls.
@Suite(.ownThread, .timeLimit(.minutes(1))) struct RealClockSleepWarningTests {
    /// The real-clock sleeps a test writes, with the clock the warning names for each.
    static let sleeps: [(name: String, clock: String, sleep: @Sendable () async throws -> Void)] = [
        ("Task.sleep(for:)", "ContinuousClock", { try await Task.sleep(for: .milliseconds(1)) }),
        ("Task.sleep(nanoseconds:)", "ContinuousClock", { try await Task.sleep(nanoseconds: 1_000_000) }),
        ("ContinuousClock", "ContinuousClock", { try await ContinuousClock().sleep(for: .milliseconds(1)) }),
        ("SuspendingClock", "SuspendingClock", { try await SuspendingClock().sleep(for: .milliseconds(1)) }),
    ]

    /// Drives `scheduler` at its current time until `isDone`, with a millisecond of real time
    /// between drives: a real-clock sleep ends in real time, and its wake-up waits for a drive.
    /// On the caller's actor: a main-actor task's jobs need the main actor.
    private func drive(
        _ scheduler: TestScheduler, isolation: isolated (any Actor)? = #isolation, until isDone: () -> Bool
    ) async throws {
        while !isDone() {
            scheduler.advance(by: 0)
            try await Task.sleep(for: .milliseconds(1))
        }
    }

    /// The warning's words for a sleep on `clock`.
    private func expectNamesTheCallAndTheFix(_ warnings: [String], clock: String, scheduler: TestScheduler) {
        #expect(warnings.count == 1)
        let message = warnings.first ?? ""
        #expect(message.hasPrefix(
            "Schedulers warning: a task running in the virtual time of \(scheduler) slept on a real clock, \(clock) ("))
        if clock == "ContinuousClock" {
            #expect(message.contains("Task.sleep(for:), Task.sleep(nanoseconds:) or ContinuousClock().sleep(for:)"))
        } else {
            #expect(message.contains("SuspendingClock().sleep(for:)"))
        }
        #expect(message.contains("cannot be exact: its deadline is an instant on a clock the test does not own"))
        #expect(message.contains("`scheduler.clock`"))
        #expect(message.contains("`any Clock<Duration>`"))
        #expect(message.contains("Task.sleep(for:clock: scheduler.clock)"))
        #expect(message.hasSuffix("(Once per scheduler.)"))
    }

    /// A captured global task: the warning comes while the scheduler runs the task's job (so the
    /// synchronous `advance` has emitted it when it returns). The sleep ends in real time, and
    /// its wake-up is queued on the scheduler: the task goes on as the scheduler's work, in the
    /// drive that is running when the sleep ends (a busy machine) or the next one.
    @Test(arguments: 0..<sleeps.count) func aCapturedGlobalTaskSleepingOnARealClockIsNamed(index: Int) async throws {
        let (name, clock, sleep) = Self.sleeps[index]
        let scheduler = TestScheduler()
        let wokeOnTheScheduler = Locked<Bool?>(nil)
        let (task, warnings) = Warning.capture(about: scheduler) {
            scheduler.withCapturedTasks {
                let task = Task {
                    try await sleep()
                    wokeOnTheScheduler.withLock { $0 = Scheduler.current === scheduler }
                }
                scheduler.advance(by: 0)
                return task
            }
        }
        expectNamesTheCallAndTheFix(warnings, clock: clock, scheduler: scheduler)
        try await drive(scheduler) { wokeOnTheScheduler.value != nil }
        #expect(wokeOnTheScheduler.value == true, "\(name)")
        try await task.value
        #expect(scheduler.pendingCount == 0, "\(name)")
    }

    /// After a real-clock sleep a captured task is still in virtual time, however the real time
    /// falls: a wake-up that comes before the task has finished suspending (1 ms on a busy
    /// machine) or after the capture has returned runs as the scheduler's work, at the virtual
    /// time of that drive. The task's next sleep, on the scheduler's clock, is exact and gets
    /// no second warning.
    @Test func aTaskStaysInVirtualTimeAfterARealSleep() async throws {
        let scheduler = TestScheduler()
        let clock = scheduler.clock
        let steps = Locked([String]())
        @Sendable func step(_ what: String) {
            let place = Scheduler.current === scheduler ? "on the scheduler" : "elsewhere"
            steps.withLock { $0.append("\(what) \(scheduler.now.timeIntervalSinceReferenceDate), \(place)") }
        }
        let (_, warnings) = try await Warning.capture(about: scheduler) {
            let task = scheduler.withCapturedTasks {
                let task = Task {
                    try await Task.sleep(for: .milliseconds(1))
                    step("woke at")
                    try await clock.sleep(for: .seconds(1))
                    step("slept until")
                }
                scheduler.advance(by: 0)
                return task
            }
            try await drive(scheduler) { !steps.value.isEmpty }
            #expect(steps.value == ["woke at 0.0, on the scheduler"])
            scheduler.advance(by: 0.999)
            #expect(steps.value == ["woke at 0.0, on the scheduler"])
            scheduler.advance(by: 0.001)
            try await task.value
        }
        #expect(steps.value == ["woke at 0.0, on the scheduler", "slept until 1.0, on the scheduler"])
        #expect(warnings.count == 1)
    }

    /// A task that prefers the scheduler is in its virtual time too: the same warning, and its
    /// wake-up, in the drive running when the sleep ends (under a sanitizer, often the first) or
    /// a later one, runs it as the scheduler's work.
    @Test func aTaskPreferringTheSchedulerSleepingOnARealClockIsNamed() async throws {
        let scheduler = TestScheduler()
        let wokeOnTheScheduler = Locked<Bool?>(nil)
        let (task, warnings) = Warning.capture(about: scheduler) {
            let task = Task(executorPreference: scheduler) {
                try await Task.sleep(for: .milliseconds(1))
                wokeOnTheScheduler.withLock { $0 = Scheduler.current === scheduler }
            }
            scheduler.advance(by: 0)
            return task
        }
        expectNamesTheCallAndTheFix(warnings, clock: "ContinuousClock", scheduler: scheduler)
        try await drive(scheduler) { wokeOnTheScheduler.value != nil }
        #expect(wokeOnTheScheduler.value == true)
        try await task.value
    }

    /// A captured main-actor task (a `@MainActor` view model's `Task {}`) sleeping on a real
    /// clock: `Task.sleep` and `Clock.sleep` are nonisolated, so the task hops off the main
    /// actor to call them, the hop is captured, and the warning names the call.
    @MainActor @Test(arguments: 0..<sleeps.count) func aCapturedMainActorTaskSleepingOnARealClockIsNamed(index: Int) {
        let (_, clock, sleep) = Self.sleeps[index]
        let scheduler = TestScheduler()
        let (_, warnings) = Warning.capture(about: scheduler) {
            scheduler.withCapturedTasks {
                Task { @MainActor in try? await sleep() }
                scheduler.advance(by: 0)
            }
        }
        expectNamesTheCallAndTheFix(warnings, clock: clock, scheduler: scheduler)
    }

    /// After its real sleep, a captured main-actor task comes back to the main actor through the
    /// scheduler's stand-in: it wakes as the scheduler's work, in the drive that is running when
    /// the sleep ends or the next one, never on the real main actor.
    @MainActor @Test func aCapturedMainActorTaskWakesUpOnlyWhenTheSchedulerIsDriven() async throws {
        let scheduler = TestScheduler()
        let wokeOnTheScheduler = Locked<Bool?>(nil)
        let (task, warnings) = Warning.capture(about: scheduler) {
            scheduler.withCapturedTasks {
                let task = Task { @MainActor in
                    try await Task.sleep(for: .milliseconds(1))
                    wokeOnTheScheduler.withLock { $0 = Scheduler.current === scheduler }
                }
                scheduler.advance(by: 0)
                return task
            }
        }
        #expect(warnings.count == 1)
        // Driven from the main actor, which its main-actor job needs.
        try await drive(scheduler) { wokeOnTheScheduler.value != nil }
        #expect(wokeOnTheScheduler.value == true)
        try await task.value
    }

    /// Once per scheduler: several sleeps, on both clocks, by several tasks, and later
    /// captures, give one warning (the first sleep's); another scheduler warns again.
    @Test func eachSchedulerWarnsOnce() async throws {
        let scheduler = TestScheduler()
        let (tasks, warnings) = Warning.capture(about: scheduler) { () -> [Task<Void, Never>] in
            scheduler.withCapturedTasks {
                let first = Task {
                    try? await Task.sleep(for: .milliseconds(1))
                    try? await SuspendingClock().sleep(for: .milliseconds(1))
                }
                scheduler.advance(by: 0)
                let second = Task.detached { _ = try? await SuspendingClock().sleep(for: .milliseconds(1)) }
                scheduler.advance(by: 0)
                return [first, second]
            }
        }
        let finished = Locked(0)
        let watchers = tasks.map { task in Task { _ = await task.value; finished.withLock { $0 += 1 } } }
        try await drive(scheduler) { finished.value == tasks.count }
        for watcher in watchers { await watcher.value }
        let (_, later) = Warning.capture(about: scheduler) {
            scheduler.withCapturedTasks {
                Task { try? await ContinuousClock().sleep(for: .milliseconds(1)) }
                scheduler.advance(by: 0)
            }
        }
        #expect(warnings.count == 1)
        #expect(warnings.first?.contains("slept on a real clock, ContinuousClock") == true)
        #expect(later.isEmpty)

        let other = TestScheduler()
        let (_, otherWarnings) = Warning.capture(about: other) {
            other.withCapturedTasks {
                Task { try? await SuspendingClock().sleep(for: .milliseconds(1)) }
                other.advance(by: 0)
            }
        }
        #expect(otherWarnings.count == 1)
        #expect(otherWarnings.first?.contains("slept on a real clock, SuspendingClock") == true)
    }

    /// A task outside the capture sleeping on a real clock at the same time (started before the
    /// capture, so on the cooperative pool) gets no warning, and neither does the capture's own
    /// sleep on the scheduler's clock.
    @Test func tasksOutsideVirtualTimeAndSleepsOnTheSchedulersClockDoNotWarn() async throws {
        let scheduler = TestScheduler()
        let clock = scheduler.clock
        let outsideSlept = Locked(false)
        let (tasks, warnings) = Warning.capture(about: scheduler) {
            let outside = Task.detached {
                try await Task.sleep(for: .milliseconds(1))
                try await SuspendingClock().sleep(for: .milliseconds(1))
                outsideSlept.withLock { $0 = true }
            }
            let inside = scheduler.withCapturedTasks {
                let inside = Task {
                    try await Task.sleep(for: .seconds(1), clock: clock)
                    try await clock.sleep(for: .seconds(1))
                }
                scheduler.advance(by: 2)
                return inside
            }
            return (outside, inside)
        }
        try await tasks.0.value
        try await tasks.1.value
        #expect(outsideSlept.value)
        #expect(warnings.isEmpty)
    }
}
#endif
