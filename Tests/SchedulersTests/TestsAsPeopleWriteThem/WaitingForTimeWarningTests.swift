import Foundation
@testable import Schedulers
import Testing
import TestSupport

/// A body that waits for something only an advance can bring says so: after
/// `waitWarningDelay` of real time, one warning naming the earliest pending due time and the
/// fix. Here another thread advances the scheduler a little later, so each test ends.
@Suite(.ownThread, .timeLimit(.minutes(5))) struct WaitingForTimeWarningTests {
    /// The body parks, waiting for a task that sleeps on the clock.
    @Test func aBodyWaitingForASleepingTaskIsNamed() async {
        let scheduler = TestScheduler()
        scheduler.waitWarningDelay = .milliseconds(100)
        #expect(scheduler.waitWarningDelay == .milliseconds(100))
        let clock = scheduler.clock
        let (value, warnings) = await Warning.capture(about: scheduler) {
            await scheduler.withCapturedTasks {
                let task = Task {
                    try? await clock.sleep(for: .seconds(1))
                    return 7
                }
                advanceLater(scheduler, by: 1, afterWarnings: 1)
                return await task.value
            }
        }
        #expect(value == 7)
        #expect(warnings.count == 1)
        let warning = warnings.first ?? ""
        #expect(warning.contains("has waited more than 0.1 seconds of real time with nothing due now; advance virtual time"))
        #expect(warning.contains("Nothing is due at the current virtual time (0.0 s after 2001-01-01)"))
        #expect(warning.contains("the earliest pending work is due at 1.0 s after 2001-01-01, 1.0 seconds later"))
        #expect(warning.contains("`await scheduler.clock.advance(by:)`"))
    }

    /// The body spins on `Task.yield()` until a sleep ends: busy, but waiting for time too.
    @Test func aBodyYieldingUntilASleepEndsIsNamed() async {
        let scheduler = TestScheduler()
        scheduler.waitWarningDelay = .milliseconds(100)
        let clock = scheduler.clock
        let (_, warnings) = await Warning.capture(about: scheduler) {
            await scheduler.withCapturedTasks {
                let flag = Locked(false)
                Task {
                    try? await clock.sleep(for: .seconds(2))
                    flag.withLock { $0 = true }
                }
                advanceLater(scheduler, by: 2, afterWarnings: 1)
                while !flag.value { await Task.yield() }
            }
        }
        #expect(warnings.count == 1)
        #expect(warnings.first?.contains("the earliest pending work is due at 2.0 s after 2001-01-01") == true)
    }

    /// What the body waits for makes its sleep only after the driver parked, and the sleep,
    /// due later, does not wake the driver: the warning looks again while the driver stays
    /// parked, instead of giving up at its first look (nothing was pending then). Here a task
    /// from outside the world, started 300 ms after the body parks, joins the world by sleeping
    /// on its clock.
    @Test func aSleepMadeAfterTheDriverParkedIsNamed() async {
        let scheduler = TestScheduler()
        scheduler.waitWarningDelay = .milliseconds(100)
        let clock = scheduler.clock
        let (value, warnings) = await Warning.capture(about: scheduler) {
            await scheduler.withCapturedTasks {
                await withCheckedContinuation { (body: CheckedContinuation<Int, Never>) in
                    Thread {
                        usleep(300_000)
                        Task.detached {
                            try? await clock.sleep(for: .seconds(1))
                            body.resume(returning: 8)
                        }
                    }.start()
                    advanceLater(scheduler, by: 1, afterWarnings: 1)
                }
            }
        }
        #expect(value == 8)
        #expect(warnings.count == 1)
        #expect(warnings.first?.contains("the earliest pending work is due at 1.0 s after 2001-01-01") == true)
    }

    /// Cancelling the test's task (as a time limit does) ends a body waiting for time: the
    /// sleep of the child it awaits throws, and the capture returns. (The body's own sleeps let
    /// time pass instead: BodySleepTests.)
    @Test func cancellingTheTestEndsTheWait() async {
        let scheduler = TestScheduler()
        let clock = scheduler.clock
        let test = Task {
            await scheduler.withCapturedTasks {
                async let slept: Void = clock.sleep(for: .seconds(10))
                do {
                    try await slept
                    return false
                } catch {
                    return error is CancellationError
                }
            }
        }
        while scheduler.pendingCount == 0 { await Task.yield() }
        test.cancel()
        #expect(await test.value)
        #expect(scheduler.pendingCount == 0)
    }

    /// A body that waits only for what is due now, or advances first, gets no warning, however
    /// long the real time (a small delay, and real work between).
    @Test func noWarningWhereNothingIsWrong() async {
        let scheduler = TestScheduler()
        scheduler.waitWarningDelay = .milliseconds(1)
        let clock = scheduler.clock
        let (_, warnings) = await Warning.capture(about: scheduler) {
            await scheduler.withCapturedTasks {
                let task = Task {
                    try? await clock.sleep(for: .seconds(1))
                    return 1
                }
                await clock.advance(by: .seconds(1))
                #expect(await task.value == 1)
                #expect(await Task { 2 }.value == 2)
            }
        }
        #expect(warnings == [])
    }
}

/// Advances `scheduler` from a thread of its own once it has issued `count` warnings (the body
/// is parked or spinning meanwhile, so only another thread can). Not a Dispatch block: one that
/// world code submits is the world's, and time would hold for it (WorldDispatchTests).
private func advanceLater(_ scheduler: TestScheduler, by seconds: TimeInterval, afterWarnings count: Int) {
    Thread {
        let deadline = Date().addingTimeInterval(30)
        while Warning.capturedCount(about: scheduler) < count, Date() < deadline { usleep(10_000) }
        scheduler.advance(by: seconds)
    }.start()
}
