import Foundation
@testable import Schedulers
import Testing
import TestSupport

/// A captured task may outlive its scheduler: its later jobs are released without running, and
/// no job touches the released scheduler's memory. Each case runs in a process of its own (an
/// exit test), so that a regression fails its test instead of crashing the run; CI runs them
/// under AddressSanitizer and ThreadSanitizer too (the whole suite is). Each child then runs the
/// contract's debounce in a fresh scheduler, as the next test in a process would.
@Suite(.ownThread, .timeLimit(.minutes(5))) struct CapturedTaskLifetimeTests {
    /// A main-actor task waiting on a continuation that a Dispatch callback resumes after the
    /// scheduler is gone, in the asynchronous shape.
    @Test func aMainActorTaskResumedAfterTheSchedulerIsGone() async {
        await #expect(processExitsWith: .success) {
            let pending = PendingResume()
            await LifetimeScenarios.startWaitingMainActorTask(resumedBy: pending, asynchronous: true)
            pending.resumeFromDispatch()
            try await Task.sleep(for: .milliseconds(100))
            #expect(pending.ranAfterResume == false)
            await LifetimeScenarios.debounceStillExact()
        }
    }

    /// The same in the synchronous shape.
    @Test func aMainActorTaskResumedAfterTheSchedulerIsGoneSynchronousShape() async {
        await #expect(processExitsWith: .success) {
            let pending = PendingResume()
            await LifetimeScenarios.startWaitingMainActorTask(resumedBy: pending, asynchronous: false)
            pending.resumeFromDispatch()
            try await Task.sleep(for: .milliseconds(100))
            #expect(pending.ranAfterResume == false)
            await LifetimeScenarios.debounceStillExact()
        }
    }

    /// A main-actor task sleeping on the real clock (a view model calling `Task.sleep(for:)`
    /// directly) whose sleep ends after the scheduler is gone.
    @Test func aMainActorTaskSleepingOnTheRealClock() async {
        await #expect(processExitsWith: .success) {
            await LifetimeScenarios.startRealSleepMainActorTask()
            try await Task.sleep(for: .milliseconds(200))
            await LifetimeScenarios.debounceStillExact()
        }
    }

    /// A captured global task resumed from a Dispatch callback after the scheduler is gone: it
    /// goes on outside virtual time (nothing captures it any more), and touches nothing freed.
    @Test func aGlobalTaskResumedAfterTheSchedulerIsGone() async {
        await #expect(processExitsWith: .success) {
            let pending = PendingResume()
            do {
                let scheduler = TestScheduler()
                _ = scheduler.withCapturedTasks {
                    Task {
                        await withCheckedContinuation { pending.store($0) }
                        pending.markRan()
                    }
                }
                scheduler.advance(by: 0)
                #expect(pending.isStored)
            }
            pending.resumeFromDispatch()
            for _ in 0..<200 where !pending.ranAfterResume { try await Task.sleep(for: .milliseconds(10)) }
            #expect(pending.ranAfterResume)
            await LifetimeScenarios.debounceStillExact()
        }
    }
}

@MainActor enum LifetimeScenarios {
    /// Starts a captured main-actor task that waits on `pending`, then lets its scheduler go.
    static func startWaitingMainActorTask(resumedBy pending: PendingResume, asynchronous: Bool) async {
        do {
            let scheduler = TestScheduler()
            let start = {
                Task { @MainActor in
                    await withCheckedContinuation { pending.store($0) }
                    pending.markRan()
                }
            }
            if asynchronous {
                await scheduler.withCapturedTasks {
                    _ = start()
                    await scheduler.clock.advance(by: .zero)
                }
            } else {
                scheduler.withCapturedTasks {
                    _ = start()
                    scheduler.advance(by: 0)
                }
            }
            #expect(pending.isStored)
        }
    }

    /// Starts a captured main-actor task that sleeps 50 ms on the real clock, then lets its
    /// scheduler go.
    static func startRealSleepMainActorTask() async {
        do {
            let scheduler = TestScheduler()
            _ = await Warning.capture(about: scheduler) {
                await scheduler.withCapturedTasks {
                    Task { @MainActor in
                        try? await Task.sleep(for: .milliseconds(50))
                        MainActor.assertIsolated()
                    }
                    await scheduler.clock.advance(by: .zero)
                }
            }
        }
    }

    /// The contract's debounce, in a fresh scheduler: the next test in the same process.
    static func debounceStillExact() async {
        let scheduler = TestScheduler()
        let model = SearchModel(clock: scheduler.clock)
        await scheduler.withCapturedTasks {
            model.queryChanged("s")
            await scheduler.clock.advance(by: .milliseconds(299))
            #expect(model.results == [])
            await scheduler.clock.advance(by: .milliseconds(1))
            #expect(model.results == ["s"])
        }
    }
}

/// A continuation to resume later from a Dispatch thread, and whether the code after it ran.
final class PendingResume: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<Void, Never>?
    private var stored = false
    private var ran = false

    var isStored: Bool { lock.withLock { stored } }
    var ranAfterResume: Bool { lock.withLock { ran } }

    func store(_ continuation: CheckedContinuation<Void, Never>) {
        lock.withLock {
            self.continuation = continuation
            stored = true
        }
    }

    func markRan() { lock.withLock { ran = true } }

    func resumeFromDispatch() {
        let continuation = lock.withLock { () -> CheckedContinuation<Void, Never>? in
            defer { self.continuation = nil }
            return self.continuation
        }
        DispatchQueue.global().async { continuation?.resume() }
    }
}
