import Foundation
@testable import Schedulers
import Testing
import TestSupport

/// The shapes that cannot be exact are never silent: each gets one warning naming the fix that
/// applies (collected here through the package's warning seam instead of printed).
@Suite(.ownThread, .timeLimit(.minutes(5))) struct MainActorWarningTests {
    /// The synchronous form inside an async test: Swift prefers the async overload there.
    private func synchronously(_ scheduler: TestScheduler, _ body: () -> Void) {
        scheduler.withCapturedTasks(body)
    }

    /// A captured main-actor job that comes due while the scheduler is driven synchronously off
    /// the main actor goes to the real main actor, and the scheduler says so once.
    @Test func drivingOffTheMainActorWarnsAndHandsTheJobToTheMainActor() async {
        let ran = Locked(0)
        let scheduler = TestScheduler()
        let (_, warnings) = Warning.capture {
            synchronously(scheduler) {
                Task { @MainActor in ran.withLock { $0 += 1 } }
                Task { @MainActor in ran.withLock { $0 += 1 } }
                #expect(scheduler.pendingCount == 2)
                scheduler.advance(by: 0)
            }
        }
        #expect(scheduler.pendingCount == 0)
        // Out of virtual time: they run when the main actor gets to them.
        #expect(await waitUntilOffPool { ran.value == 2 })
        #expect(warnings.count == 1)
        #expect(warnings.first?.contains("await scheduler.clock.advance(by:)") == true)
        #expect(warnings.first?.contains("@MainActor") == true)
    }

    /// A main-actor task started outside any capture sleeps on the clock from the real main
    /// actor: the warning names the main-actor fixes, not `Task(executorPreference:)`.
    @MainActor @Test func aMainActorTaskOutsideACaptureIsToldHowToCaptureIt() async {
        let scheduler = TestScheduler()
        let (_, warnings) = await Warning.capture(about: scheduler) {
            let task = Task { try await scheduler.clock.sleep(for: .seconds(1)) }
            task.cancel()
            _ = await task.result
        }
        #expect(warnings.count == 1)
        #expect(warnings.first?.contains("For a task on the main actor") == true)
        #expect(warnings.first?.contains("withCapturedTasks") == true)
    }

    /// A captured task resumed from a foreign thread stays in virtual time: its next job waits
    /// on the scheduler for the next drive; its sleep on the clock is then no escape and draws
    /// no warning. The test let the work arrive before driving again, so nothing is reported.
    @Test func aCapturedTaskResumedFromAnotherThreadStaysCaptured() async {
        let scheduler = TestScheduler()
        let slept = Locked(false)
        let parked = Locked<CheckedContinuation<Void, Never>?>(nil)
        let (_, warnings) = await Warning.capture(about: scheduler) {
            synchronously(scheduler) {
                Task {
                    await withCheckedContinuation { continuation in
                        parked.withLock { $0 = continuation }
                    }
                    slept.withLock { $0 = true }
                    try? await scheduler.clock.sleep(for: .seconds(1))
                }
                scheduler.advance(by: 0)
            }
            let continuation = parked.withLock { $0.take() }
            #expect(continuation != nil)
            DispatchQueue.global().async { continuation?.resume() }
            #expect(await waitUntilOffPool { scheduler.pendingCount == 1 })
            #expect(!slept.value)
            scheduler.advance(by: 1)
        }
        #expect(slept.value)
        #expect(scheduler.pendingCount == 0)
        #expect(DetachedSleepWarning.printCount(for: scheduler) == 0)
        #expect(warnings == [])
    }

    /// The words for a captured task that left virtual time anyway (a `Task.detached`, which
    /// holds no capture's lifetime, resumed while no capture holds the hook).
    @Test func aTaskThatLeftAfterACaptureIsToldWhy() {
        let message = DetachedSleepWarning.message(
            for: TestScheduler(), call: "sleep(for:)", cause: .capturedButLeft)
        #expect(message.contains("after leaving withCapturedTasks"))
        #expect(message.contains("resumed from a thread outside the scheduler"))
    }

    /// A task that prefers another executor (here the global concurrent one) is told that its
    /// preference is the cause, not a Dispatch callback.
    @Test func aTaskThatPrefersAnotherExecutorIsToldItsPreferenceIsTheCause() async {
        let scheduler = TestScheduler()
        let (_, warnings) = await Warning.capture(about: scheduler) {
            synchronously(scheduler) {
                Task(executorPreference: globalConcurrentExecutor) {
                    try? await scheduler.clock.sleep(for: .seconds(1))
                }
            }
            #expect(await waitUntilOffPool { DetachedSleepWarning.printCount(for: scheduler) == 1 })
        }
        #expect(warnings.count == 1)
        #expect(warnings.first?.hasPrefix(
            "Schedulers warning: a task called clock.sleep(for:tolerance:) on \(scheduler) while running outside it, on the executor it prefers; prefer the scheduler instead: Task(executorPreference: scheduler).") == true)
        #expect(warnings.first?.contains("Dispatch") == false)
        scheduler.advance(by: 1)
    }

    /// A captured main-actor job that the synchronous drive off the main actor sent to the main
    /// queue, and that then sleeps on the clock from there, is warned about once: the drive's
    /// warning names the cause, and no second one blames a Dispatch callback.
    @Test func drivingOffTheMainActorWarnsOnceWhenTheJobThenSleeps() async {
        let scheduler = TestScheduler()
        let (_, warnings) = await Warning.capture(about: scheduler) {
            synchronously(scheduler) {
                Task { @MainActor in try? await scheduler.clock.sleep(for: .seconds(1)) }
                scheduler.advance(by: 0)
            }
            // The job ran on the real main actor, and its sleep is now pending on the scheduler.
            #expect(await waitUntilOffPool { scheduler.pendingCount == 1 })
        }
        #expect(warnings.count == 1)
        #expect(warnings.first?.hasPrefix("Schedulers warning: a main-actor job of a task started inside withCapturedTasks") == true)
        #expect(DetachedSleepWarning.printCount(for: scheduler) == 0)
    }

    /// A task handed to the real main actor stays there: a job it queues on the executor it
    /// runs on (its stand-in, where it suspended in the world before), here a `Task.yield()`,
    /// goes back to the main queue, not into virtual time to wait for a drive.
    @Test func whatAHandedOffTaskQueuesOnItsStandInStaysOnTheMainActor() async {
        let scheduler = TestScheduler()
        let reached = Locked(false)
        let (_, warnings) = await Warning.capture(about: scheduler) {
            // Its first job runs in the world, on the main actor; it sleeps there.
            await MainActor.run {
                scheduler.withCapturedTasks {
                    Task { @MainActor in
                        try? await scheduler.clock.sleep(for: .seconds(1))
                        await Task.yield()
                        reached.withLock { $0 = true }
                        try? await scheduler.clock.sleep(for: .seconds(1))
                    }
                    scheduler.advance(by: 0)
                }
            }
            #expect(scheduler.pendingCount == 1)
            // Woken by a drive off the main actor: handed to the real main actor.
            synchronously(scheduler) { scheduler.advance(by: 1) }
            #expect(await waitUntilOffPool { reached.value && scheduler.pendingCount == 1 })
            scheduler.advance(by: 1)
        }
        #expect(warnings.count == 1)
        #expect(warnings.first?.hasPrefix("Schedulers warning: a main-actor job of a task started inside withCapturedTasks") == true)
    }

    /// A captured task whose main-actor job went to the real main actor has left virtual time
    /// for good: while another capture (a parallel test's) holds the runtime's hooks, its next
    /// main-actor check is not answered with its scheduler's stand-in, which would park it there
    /// for a drive its test never makes (1 in about 25 runs of this suite, before).
    @Test func aTaskHandedToTheMainActorStaysOutWhileAnotherCaptureHoldsTheHooks() async {
        let scheduler = TestScheduler()
        let other = TestScheduler()
        let reached = Locked(false)
        let parked = Locked<CheckedContinuation<Void, Never>?>(nil)
        let (_, warnings) = await Warning.capture(about: scheduler) {
            synchronously(scheduler) {
                Task { @MainActor in
                    await withCheckedContinuation { continuation in parked.withLock { $0 = continuation } }
                    reached.withLock { $0 = true }
                    try? await scheduler.clock.sleep(for: .seconds(1))
                }
                scheduler.advance(by: 0)
            }
            #expect(await waitUntilOffPool { parked.value != nil })
            let pendingWhileHooked = await withCheckedContinuation { done in
                Thread {
                    other.withCapturedTasks {
                        parked.withLock { $0.take() }?.resume()
                        guard waitUntil({ reached.value && scheduler.pendingCount > 0 }) else {
                            return done.resume(returning: -1)
                        }
                        // The main-actor job that armed the sleep has returned.
                        DispatchQueue.main.sync {}
                        done.resume(returning: scheduler.pendingCount)
                    }
                }.start()
            }
            // The sleep alone: not a job of the task too, parked on the stand-in.
            #expect(pendingWhileHooked == 1)
        }
        #expect(warnings.count == 1)
        #expect(DetachedSleepWarning.printCount(for: scheduler) == 0)
        scheduler.advance(by: 1)
        #expect(scheduler.pendingCount == 0)
    }
}
