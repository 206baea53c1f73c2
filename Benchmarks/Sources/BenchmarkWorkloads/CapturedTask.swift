import Dispatch
import Schedulers
import Synchronization

/// Workload 10: what one task costs in virtual time. `tasks` tasks, each created, sleeping 1 ms
/// on a ``TestScheduler``'s clock and finishing, driven by `clock.run()`, in three ways:
/// - captured: plain `Task {}`s started inside `await scheduler.withCapturedTasks { … }`
///   (nonisolated), which the runtime hooks send to the scheduler;
/// - preferring: `Task(executorPreference: scheduler)`, no capture (no hook on the way);
/// - plain: a `Task {}` on the cooperative pool that yields once instead of sleeping, awaited
///   (what the same work costs outside virtual time).
/// Each runs from synchronous code on a thread of its own (a detached task waited for), so the
/// tasks it starts inherit no actor.
public enum CapturedTaskWorkload {
    /// Counts finished tasks; atomic, as plain tasks finish on the pool's threads.
    final class Finished: Sendable {
        let count = Atomic<Int>(0)
        func add() { count.add(1, ordering: .relaxed) }
        var value: Int { count.load(ordering: .relaxed) }
    }

    public static func captured(tasks: Int) {
        runDetached {
            let finished = Finished()
            await capture(tasks: tasks, finished: finished)
            precondition(finished.value == tasks, "captured tasks: \(finished.value) of \(tasks) finished")
        }
    }

    /// A new scheduler's capture of `tasks` plain tasks, each sleeping 1 ms on its clock, driven
    /// by `clock.run()`.
    private static func capture(tasks: Int, finished: Finished) async {
        let scheduler = TestScheduler()
        let clock = scheduler.clock
        await scheduler.withCapturedTasks {
            for _ in 0..<tasks {
                Task {
                    try? await clock.sleep(for: .milliseconds(1))
                    finished.add()
                }
            }
            await clock.run()
        }
    }

    /// `tasks` captured tasks shared among `captures` captures running at once, each of its own
    /// scheduler, driven from a detached task of its own: what parallel tests pay for the
    /// process-wide state every captured task's hop goes through (the hooks, the identity table).
    public static func capturedInParallel(tasks: Int, captures: Int) {
        runDetached {
            let finished = Finished()
            await withTaskGroup(of: Void.self) { group in
                for index in 0..<captures {
                    // The first captures take the remainder, so the total is exactly `tasks`.
                    let share = tasks / captures + (index < tasks % captures ? 1 : 0)
                    group.addTask { await capture(tasks: share, finished: finished) }
                }
            }
            precondition(finished.value == tasks, "parallel captured tasks: \(finished.value) of \(tasks) finished")
        }
    }

    public static func preferring(tasks: Int) {
        runDetached {
            let scheduler = TestScheduler()
            let clock = scheduler.clock
            let finished = Finished()
            for _ in 0..<tasks {
                Task(executorPreference: scheduler) {
                    try? await clock.sleep(for: .milliseconds(1))
                    finished.add()
                }
            }
            await clock.run()
            precondition(finished.value == tasks, "preferring tasks: \(finished.value) of \(tasks) finished")
        }
    }

    public static func plain(tasks: Int) {
        runDetached {
            let finished = Finished()
            var handles: [Task<Void, Never>] = []
            handles.reserveCapacity(tasks)
            for _ in 0..<tasks {
                handles.append(Task {
                    await Task.yield()
                    finished.add()
                })
            }
            for handle in handles { await handle.value }
            precondition(finished.value == tasks, "plain tasks: \(finished.value) of \(tasks) finished")
        }
    }
}

/// Runs `body` in a detached task and blocks the calling thread (never a pool thread: the main
/// thread of the `ratios` or `workload` executable) until it is done.
func runDetached(_ body: @escaping @Sendable () async -> Void) {
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        await body()
        done.signal()
    }
    done.wait()
}
