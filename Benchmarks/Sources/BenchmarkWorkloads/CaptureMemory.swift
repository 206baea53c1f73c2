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

    /// What resident memory grows by over `captures` captures of `shape`, on the main thread
    /// (Linux; 0 elsewhere): per capture, read over a third run of `captures` after two others;
    /// and what the first two runs grew by beyond that, once in a process.
    ///
    /// Why not the first run: it carries costs a process pays once, whatever the count, among them
    /// 33 pages (132 KiB) for each thread that first allocates then: the malloc arena glibc
    /// gives it. Six runs of 102,400 nonisolated captures in a row, in each of three processes,
    /// grew by 33 pages in the first run (two processes) or the second (one), by one page in one
    /// later run, and by nothing otherwise: what a run grows by once a process has its threads is
    /// what each further capture, a test, costs. The pool starts a thread when its others are
    /// busy, which may come late: the third run is read, and the ratio table takes the median of
    /// three processes.
    public static func residentGrowth(
        _ shape: Shape, captures: Int, warmUp: Int = 2_000
    ) -> (perCapture: Double, once: Int) {
        precondition(Thread.isMainThread, "CaptureMemoryWorkload must run on the main thread")
        run(shape, warmUp)
        // Read once for nothing: the first reading runs Foundation's file and string code for
        // the first time, and the pages it touches after the kernel counted them (about 330 kB,
        // whatever the count) would otherwise read as growth, 3 bytes a capture at 100,000.
        _ = residentMemoryBytes()
        let start = residentMemoryBytes()
        run(shape, captures)
        run(shape, captures)
        let third = residentMemoryBytes()
        run(shape, captures)
        let end = residentMemoryBytes()
        return (Double(end - third) / Double(captures), (third - start) - 2 * (end - third))
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
