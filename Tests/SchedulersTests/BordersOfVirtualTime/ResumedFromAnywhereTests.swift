import Dispatch
import Foundation
@testable import Schedulers
import Testing
import TestSupport

/// A backend of the outside world (a real network client's): it completes on a Dispatch
/// queue, a little later, and counts its callbacks in `arrived`. Its work is started by a thread
/// of its own, outside every virtual world: Dispatch work that world code submits itself is the
/// world's, and time holds for it (WorldDispatchTests), so only work like this arrives from
/// outside.
private func dispatchBackend(_ query: String, arrived: Locked<Int>? = nil) async -> [String] {
    await withCheckedContinuation { continuation in
        Thread {
            DispatchQueue.global().asyncAfter(deadline: .now() + .microseconds(200)) {
                continuation.resume(returning: [query])
                // After: the resumption (and its report) is done when the test sees the count.
                arrived?.withLock { $0 += 1 }
            }
        }.start()
    }
}

/// The newcomer's model: no clock, a backend that completes on a Dispatch queue.
@MainActor private final class CallbackSearchModel {
    var results: [String] = []
    private(set) var search: Task<Void, Never>?
    let arrived = Locked(0)

    func search(_ query: String) {
        search = Task { [arrived] in results = await dispatchBackend(query, arrived: arrived) }
    }
}

/// Waits in real time for a Dispatch callback due within microseconds, on the main actor's
/// thread: the main-actor work of captured tasks goes to the scheduler, so holding this thread
/// for that long holds up nothing the test needs.
private func spinUntil(_ condition: () -> Bool) {
    let deadline = Date(timeIntervalSinceNow: 30)
    while !condition(), Date() < deadline { usleep(20) }
}

/// A task started inside a capture stays in virtual time whichever thread resumes it, and work
/// that arrives from outside after the test drove while it waited is reported.
@Suite(.ownThread, .timeLimit(.minutes(5))) struct ResumedFromAnywhereTests {
    static let runs = stressCount(1_000)

    /// A global task resumed from a Dispatch callback, awaited by the body: exact, unreported,
    /// and still in virtual time after the callback.
    @Test(arguments: [false, true]) func aGlobalTaskAwaitedByTheBodyIsExact(busy: Bool) async {
        await BusyTasks.around(busy: busy) {
            for _ in 0..<Self.runs {
                let scheduler = TestScheduler()
                let (step, warnings) = await Warning.capture(about: scheduler) {
                    await scheduler.withCapturedTasks {
                        let task = Task { () -> String in
                            let results = await dispatchBackend("a")
                            return "\(results) on the scheduler: \(Scheduler.current === scheduler)"
                        }
                        return await task.value
                    }
                }
                #expect(step == "[\"a\"] on the scheduler: true")
                #expect(warnings == [])
            }
        }
    }

    /// A task started by a synchronous capture and resumed from a Dispatch queue after the
    /// capture returned: its next job waits on the scheduler for the next drive and runs there.
    /// The arrival is reported if and only if the test drove while the task waited: a test that
    /// lets it arrive before driving again is never reported, one that drove past it always.
    @Test(arguments: [false, true], [false, true])
    func aGlobalTaskResumedBetweenDrivesWaitsForTheNextDrive(busy: Bool, drivesWhileItWaits: Bool) {
        BusyTasks.around(busy: busy) {
            for _ in 0..<Self.runs {
                let scheduler = TestScheduler()
                let continuation = Locked<CheckedContinuation<Void, Never>?>(nil)
                let onScheduler = Locked<Bool?>(nil)
                let (_, warnings) = Warning.capture(about: scheduler) {
                    scheduler.withCapturedTasks {
                        Task {
                            await withCheckedContinuation { resume in continuation.withLock { $0 = resume } }
                            onScheduler.withLock { $0 = Scheduler.current === scheduler }
                        }
                        scheduler.advance(by: 0)
                    }
                    // The test may look here, before the task's work has come.
                    if drivesWhileItWaits { scheduler.advance(by: 1) }
                    // Suspended now: resumed from a Dispatch queue, between drives.
                    let resumed = DispatchSemaphore(value: 0)
                    DispatchQueue.global().async {
                        continuation.withLock { $0.take() }?.resume()
                        resumed.signal()
                    }
                    resumed.wait()
                    #expect(scheduler.pendingCount == 1)
                    #expect(onScheduler.value == nil)
                    scheduler.advance(by: 0)
                }
                #expect(onScheduler.value == true)
                #expect(warnings.count == (drivesWhileItWaits ? 1 : 0))
                #expect(warnings.allSatisfy { $0.contains("a captured task was resumed from outside virtual time") })
            }
        }
    }

    /// The newcomer's model, synchronous shape: its result depends on when the callback comes,
    /// and every run whose result was wrong says so. (Waits for the callback before ending, so
    /// that a late one counts.)
    @MainActor @Test(arguments: [false, true]) func aCallbackModelIsReportedWhenWrong(busy: Bool) {
        BusyTasks.around(busy: busy) {
            var unreportedWrong = 0
            for _ in 0..<Self.runs {
                let scheduler = TestScheduler()
                let model = CallbackSearchModel()
                let (wrong, warnings) = Warning.capture(about: scheduler) {
                    let wrong = scheduler.withCapturedTasks {
                        model.search("a")
                        scheduler.advance(by: 0.3)
                        return model.results != ["a"]
                    }
                    spinUntil { model.arrived.value == 1 }
                    // A report from a Dispatch thread is given at the test's next drive.
                    scheduler.advance(by: 0)
                    return wrong
                }
                if wrong && warnings.isEmpty { unreportedWrong += 1 }
                #expect(warnings.allSatisfy { $0.contains("was resumed from outside virtual time") })
            }
            #expect(unreportedWrong == 0)
        }
    }

    /// The newcomer's model, synchronous shape, letting the answer arrive before it drives
    /// again (it waits in real time on `pendingCount`): exact, and never reported, whenever the
    /// answer comes.
    @MainActor @Test(arguments: [false, true]) func aCallbackModelLettingTheAnswerArriveIsNeverReported(busy: Bool) async {
        await BusyTasks.around(busy: busy) {
            var wrong = 0
            var reported = 0
            for _ in 0..<Self.runs {
                // Between runs the main thread drains its queue: other tests' main-queue work
                // must not wait for a thousand runs.
                await Task.yield()
                let scheduler = TestScheduler()
                let model = CallbackSearchModel()
                let (results, warnings) = Warning.capture(about: scheduler) {
                    scheduler.withCapturedTasks {
                        model.search("a")
                        scheduler.advance(by: 0)  // the search asks the backend
                        // The answer is here (queued, or run already if it came during the drive).
                        spinUntil { model.arrived.value == 1 }
                        scheduler.advance(by: 0)  // and is used
                        return model.results
                    }
                }
                if results != ["a"] { wrong += 1 }
                if !warnings.isEmpty { reported += 1 }
            }
            #expect(wrong == 0)
            #expect(reported == 0)
        }
    }

    /// The newcomer's model, asynchronous shape, where the test awaits the search: exact, and
    /// nothing to report.
    @MainActor @Test(arguments: [false, true]) func aCallbackModelAwaitedIsExact(busy: Bool) async {
        await BusyTasks.around(busy: busy) {
            for _ in 0..<Self.runs {
                let scheduler = TestScheduler()
                let model = CallbackSearchModel()
                let (results, warnings) = await Warning.capture(about: scheduler) {
                    await scheduler.withCapturedTasks {
                        model.search("a")
                        await model.search?.value
                        return model.results
                    }
                }
                #expect(results == ["a"])
                #expect(warnings == [])
            }
        }
    }

    /// The newcomer's model, asynchronous shape, looked at after an advance without awaiting:
    /// every run whose result was wrong is reported.
    @MainActor @Test(arguments: [false, true]) func aCallbackModelLookedAtIsReportedWhenWrong(busy: Bool) async {
        await BusyTasks.around(busy: busy) {
            var unreportedWrong = 0
            for _ in 0..<Self.runs {
                let scheduler = TestScheduler()
                let model = CallbackSearchModel()
                let arrived = model.arrived
                let (wrong, warnings) = await Warning.capture(about: scheduler) {
                    let wrong = await scheduler.withCapturedTasks {
                        model.search("a")
                        await scheduler.clock.advance(by: .milliseconds(300))
                        return model.results != ["a"]
                    }
                    _ = await waitUntilOffPool { arrived.value == 1 }
                    // A report from a Dispatch thread is given at the test's next drive.
                    await scheduler.clock.advance(by: .zero)
                    return wrong
                }
                if wrong && warnings.isEmpty { unreportedWrong += 1 }
            }
            #expect(unreportedWrong == 0)
        }
    }

    /// A captured task resumed from a detached task (one of no test) between drives: the report
    /// is the test's, given at its next drive, not the detached task's, which no test owns.
    @Test func anArrivalResumedFromADetachedTaskIsTheTestsIssue() {
        let scheduler = TestScheduler()
        let parked = Locked<CheckedContinuation<Void, Never>?>(nil)
        withKnownIssue {
            scheduler.withCapturedTasks {
                Task { await withCheckedContinuation { continuation in parked.withLock { $0 = continuation } } }
                scheduler.advance(by: 0)
            }
            // A drive while the task waits: its work may come after the test looked.
            scheduler.advance(by: 0)
            let continuation = parked.withLock { $0.take() }
            let resumed = DispatchSemaphore(value: 0)
            Task.detached {
                continuation?.resume()
                resumed.signal()
            }
            resumed.wait()
            scheduler.advance(by: 0)
        } matching: { issue in
            issue.comments.contains { "\($0)".contains("was resumed from outside virtual time") }
        }
    }

    /// Parallel tests, each with its own scheduler and callbacks, stay apart.
    @Test(arguments: 0..<4) func parallelTestsStayApart(index: Int) async {
        for _ in 0..<(Self.runs / 4) {
            let scheduler = TestScheduler()
            let value = await scheduler.withCapturedTasks {
                let task = Task { () -> Bool in
                    _ = await dispatchBackend("\(index)")
                    return Scheduler.current === scheduler
                }
                return await task.value
            }
            #expect(value)
        }
    }
}
