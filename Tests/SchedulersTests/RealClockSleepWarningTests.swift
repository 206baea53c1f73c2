#if compiler(>=6.3) && os(Linux)  // where real-clock sleeps can be seen (RealClockSleepInterception.swift)
import Foundation
@testable import Schedulers
import Testing
import TestSupport

/// A task in a TestScheduler's virtual time that sleeps on a real clock gets one warning per
/// scheduler, naming the call and the fix; a task outside it sleeping at the same time gets none.
/// The sleeps are short and real: the warning does not change them.
@Suite(.ownThread, .timeLimit(.minutes(1))) struct RealClockSleepWarningTests {
    /// The real-clock sleeps a test writes, with the clock the warning names for each.
    static let sleeps: [(name: String, clock: String, sleep: @Sendable () async throws -> Void)] = [
        ("Task.sleep(for:)", "ContinuousClock", { try await Task.sleep(for: .milliseconds(1)) }),
        ("Task.sleep(nanoseconds:)", "ContinuousClock", { try await Task.sleep(nanoseconds: 1_000_000) }),
        ("ContinuousClock", "ContinuousClock", { try await ContinuousClock().sleep(for: .milliseconds(1)) }),
        ("SuspendingClock", "SuspendingClock", { try await SuspendingClock().sleep(for: .milliseconds(1)) }),
    ]

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
        #expect(message.hasSuffix("(Printed once per scheduler.)"))
    }

    /// A captured global task: the warning comes while the scheduler runs the task's job (so the
    /// synchronous `advance` has emitted it when it returns), then the sleep ends in real time
    /// and the task finishes off the scheduler.
    @Test(arguments: 0..<sleeps.count) func aCapturedGlobalTaskSleepingOnARealClockIsNamed(index: Int) async throws {
        let (name, clock, sleep) = Self.sleeps[index]
        let scheduler = TestScheduler()
        let (task, warnings) = Warning.capture(about: scheduler) {
            scheduler.withCapturedTasks {
                let task = Task { try await sleep() }
                scheduler.advance(by: 0)
                return task
            }
        }
        expectNamesTheCallAndTheFix(warnings, clock: clock, scheduler: scheduler)
        // Nothing drives the scheduler any more, yet the task ends: its sleep was real.
        try await task.value
        #expect(scheduler.pendingCount == 0, "\(name)")
    }

    /// A captured task that left virtual time through a real-clock sleep and then sleeps on the
    /// scheduler's clock: the second warning names the real-clock sleep as the way out, not a
    /// Dispatch callback the test does not have.
    @Test func aTaskThatLeftThroughARealSleepIsToldSo() async throws {
        let scheduler = TestScheduler()
        let clock = scheduler.clock
        let (_, warnings) = try await Warning.capture(about: scheduler) {
            let task = scheduler.withCapturedTasks {
                let task = Task {
                    try await Task.sleep(for: .milliseconds(1))
                    try await clock.sleep(for: .seconds(1))
                }
                scheduler.advance(by: 0)
                return task
            }
            while Warning.capturedCount(about: scheduler) < 2 { try await Task.sleep(for: .milliseconds(5)) }
            while scheduler.pendingCount == 0 { try await Task.sleep(for: .milliseconds(5)) }
            scheduler.advance(by: 1)
            try await task.value
        }
        #expect(warnings.count == 2)
        #expect(warnings.last?.contains("it slept on a real clock (the warning before this one names the call)") == true)
        #expect(warnings.last?.contains("Dispatch callback") == false)
    }

    /// A task that prefers the scheduler is in its virtual time too: the same warning.
    @Test func aTaskPreferringTheSchedulerSleepingOnARealClockIsNamed() async throws {
        let scheduler = TestScheduler()
        let (task, warnings) = Warning.capture(about: scheduler) {
            let task = Task(executorPreference: scheduler) { try await Task.sleep(for: .milliseconds(1)) }
            scheduler.advance(by: 0)
            return task
        }
        expectNamesTheCallAndTheFix(warnings, clock: "ContinuousClock", scheduler: scheduler)
        // Its continuation comes back to the scheduler (its preference): drive until it has.
        while scheduler.pendingCount == 0 { await Task.yield() }
        scheduler.advance(by: 0)
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
    /// scheduler's stand-in: it waits there until the scheduler is driven again.
    @MainActor @Test func aCapturedMainActorTaskWakesUpOnlyWhenTheSchedulerIsDriven() async throws {
        let scheduler = TestScheduler()
        let woke = Locked(false)
        let (task, warnings) = Warning.capture(about: scheduler) {
            scheduler.withCapturedTasks {
                let task = Task { @MainActor in
                    try await Task.sleep(for: .milliseconds(1))
                    woke.withLock { $0 = true }
                }
                scheduler.advance(by: 0)
                return task
            }
        }
        #expect(warnings.count == 1)
        // The wake-up's main-actor job arrives in real time; until it does nothing is pending.
        while scheduler.pendingCount == 0 { await Task.yield() }
        #expect(!woke.value)
        scheduler.withCapturedTasks { scheduler.advance(by: 0) }
        #expect(woke.value)
        try await task.value
    }

    /// Once per scheduler: several sleeps, on both clocks, by several tasks, and later
    /// captures, give one warning (the first sleep's); another scheduler warns again.
    @Test func eachSchedulerWarnsOnce() async {
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
        for task in tasks { _ = await task.value }
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
