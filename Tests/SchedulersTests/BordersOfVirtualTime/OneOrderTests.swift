import Foundation
@testable import Schedulers
import Testing
import TestSupport

/// Everything due at one virtual time runs in the order it was enqueued: tasks and actions,
/// main-actor and global alike.
@Suite(.ownThread, .timeLimit(.minutes(5))) struct OneOrderTests {
    static let runs = stressCount(200)

    @Test func aTaskStartedBeforeAnActionRunsBeforeIt() {
        for _ in 0..<Self.runs {
            let scheduler = TestScheduler()
            let log = Locked([String]())
            scheduler.withCapturedTasks {
                Task { log.withLock { $0.append("task") } }
                scheduler.schedule { log.withLock { $0.append("action") } }
                Task { log.withLock { $0.append("second task") } }
                scheduler.advance(by: 0)
            }
            #expect(log.value == ["task", "action", "second task"])
        }
    }

    @Test func asynchronousCaptureKeepsTheOrderToo() async {
        for _ in 0..<Self.runs {
            let scheduler = TestScheduler()
            let log = Locked([String]())
            await scheduler.withCapturedTasks {
                Task { log.withLock { $0.append("task") } }
                scheduler.schedule { log.withLock { $0.append("action") } }
                Task.detached { log.withLock { $0.append("detached") } }
                await scheduler.clock.advance(by: .zero)
            }
            #expect(log.value == ["task", "action", "detached"])
        }
    }

    @MainActor @Test func mainActorAndGlobalWorkShareOneOrder() {
        for _ in 0..<Self.runs {
            let scheduler = TestScheduler()
            let log = Locked([String]())
            scheduler.withCapturedTasks {
                Task.detached { log.withLock { $0.append("global") } }
                Task { log.withLock { $0.append("main") } }
                scheduler.schedule { log.withLock { $0.append("action") } }
                Task.detached { log.withLock { $0.append("later global") } }
                scheduler.advance(by: 0)
            }
            #expect(log.value == ["global", "main", "action", "later global"])
        }
    }

    /// The package's sleeps schedule their wake-up in their caller's own job and isolation
    /// (`nonisolated(nonsending)`), before anything else runs: a main-actor task's wake-up is
    /// due where it called, not after a hop off the main actor that would queue it behind work
    /// enqueued meanwhile. Here that work (a global task started after the sleeper) schedules a
    /// cancellation of the sleeper, due at the same time: the wake-up, enqueued first, runs
    /// first, and the sleep returns.
    @MainActor @Test(arguments: ["scheduler.sleep(for:)", "scheduler.sleep(until:)", "clock.sleep(for:)", "clock.sleep(until:)"])
    func aMainActorSleepIsDueWhereItIsCalled(form: String) {
        for _ in 0..<Self.runs {
            let scheduler = TestScheduler()
            let log = Locked([String]())
            let sleeper = Locked<Task<Void, Never>?>(nil)
            scheduler.withCapturedTasks {
                sleeper.withLock { sleeper in
                    sleeper = Task {
                        do {
                            switch form {
                            case "scheduler.sleep(for:)": try await scheduler.sleep(for: .seconds(1))
                            case "scheduler.sleep(until:)": try await scheduler.sleep(until: scheduler.now.addingTimeInterval(1))
                            case "clock.sleep(for:)": try await scheduler.clock.sleep(for: .seconds(1))
                            default: try await scheduler.clock.sleep(until: scheduler.clock.now.advanced(by: .seconds(1)))
                            }
                            log.withLock { $0.append("woke") }
                        } catch {
                            log.withLock { $0.append("cancelled") }
                        }
                    }
                }
                Task.detached {
                    _ = scheduler.schedule(after: .seconds(1)) { sleeper.withLock { $0?.cancel() } }
                }
                scheduler.advance(by: 1)
            }
            #expect(log.value == ["woke"], "\(form)")
        }
    }
}
