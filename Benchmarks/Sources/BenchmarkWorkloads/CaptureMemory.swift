import Foundation
import Schedulers

/// Workload 11: memory per test. Each shape of capture a test suite runs, `captures` times, each
/// with a scheduler of its own (as each test makes one), after a warm-up; what resident memory
/// grew by, per capture. A test suite's memory should stay flat: per
/// scheduler, only what the docs name (the main actor's stand-in, for captures of main-actor
/// work) may stay behind.
/// - synchronous on the main actor: the view-model test, `withCapturedTasks { … advance … }`;
/// - asynchronous on the main actor: the same with `await clock.advance`;
/// - nonisolated: `await withCapturedTasks { Task { sleep 1 ms }; await clock.run() }` off any actor.
public enum CaptureMemoryWorkload {
    public enum Shape: String, CaseIterable, Sendable {
        case synchronousMainActor = "synchronous, main actor"
        case asynchronousMainActor = "asynchronous, main actor"
        case nonisolated = "asynchronous, nonisolated"
    }

    /// Resident bytes grown per capture over `captures` captures of `shape`, after `warmUp` of
    /// them, on the main thread (Linux; 0 elsewhere).
    public static func residentGrowthPerCapture(_ shape: Shape, captures: Int, warmUp: Int = 2_000) -> Double {
        precondition(Thread.isMainThread, "CaptureMemoryWorkload must run on the main thread")
        run(shape, warmUp)
        // Read once for nothing: the first reading runs Foundation's file and string code for
        // the first time, and the pages it touches after the kernel counted them (about 330 kB,
        // whatever the count) would otherwise read as growth, 3 bytes a capture at 100,000.
        _ = residentMemoryBytes()
        let before = residentMemoryBytes()
        run(shape, captures)
        return Double(residentMemoryBytes() - before) / Double(captures)
    }

    /// `count` captures of `shape`, each exact (it stops the program otherwise).
    public static func run(_ shape: Shape, _ count: Int) {
        switch shape {
        case .synchronousMainActor:
            MainActor.assumeIsolated {
                for _ in 0..<count { precondition(ViewModelDebounceWorkload.oursSynchronous()) }
            }
        case .asynchronousMainActor:
            AsyncDebounceWorkload.runOnMainActor {
                for _ in 0..<count {
                    let exact = await ViewModelDebounceWorkload.oursAsynchronous()
                    precondition(exact)
                }
            }
        case .nonisolated:
            runDetached {
                for _ in 0..<count { await nonisolatedCapture() }
            }
        }
    }

    /// One nonisolated capture: a task that sleeps 1 ms on the clock, driven by `run()`.
    static func nonisolatedCapture() async {
        let scheduler = TestScheduler()
        let clock = scheduler.clock
        let finished = CapturedTaskWorkload.Finished()
        await scheduler.withCapturedTasks {
            Task {
                try? await clock.sleep(for: .milliseconds(1))
                finished.add()
            }
            await clock.run()
        }
        precondition(finished.value == 1 && scheduler.pendingCount == 0, "nonisolated capture: not exact")
    }
}
