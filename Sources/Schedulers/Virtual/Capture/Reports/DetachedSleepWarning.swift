@_spi(SchedulersInternal) import Disposables
import Foundation

/// The warning for a task that sleeps on a ``TestScheduler`` while its jobs run elsewhere, and
/// the place where a task outside every world joins the scheduler's instead.
///
/// A task outside every world that runs on the global executor (a plain `Task {}` in a test
/// that captures nothing, a detached task, an `async` test's own task) is adopted
/// (TestScheduler+AdoptedTasks.swift): the drive that wakes it runs it on. Any other task that
/// runs elsewhere (it prefers another executor, it is isolated to an actor, it is a captured
/// task resumed from outside, or one that an actor outside the world ran on) wakes up when the
/// scheduler is driven, but then continues beside
/// the driving thread: `advance` may return before it has done anything, or after it has done
/// everything. Nothing can make that deterministic, so the scheduler says so, once.
///
/// The test is cheap and exact: a job of this scheduler (a task preferring it, or a captured
/// one) always runs with the scheduler as `Scheduler.current`, so at the sleep call the current
/// scheduler is either this one or the sleeper is running elsewhere.
enum DetachedSleepWarning {
    /// Schedulers that have warned, so each warns once. Weak, pruned as it grows: touched only
    /// when a warning is due, which correct tests never reach.
    private static let warned = Lock([WarnedScheduler]())

    /// Adopts the calling task, or warns (once per scheduler), unless the calling code is
    /// running as one of the scheduler's jobs.
    ///
    /// - Parameters:
    ///   - scheduler: The scheduler slept on.
    ///   - isolation: The caller's actor: a task isolated to one is not adopted.
    ///   - call: What was called, for the message.
    /// - Returns: whether the task was adopted: its wake-up must then wait for it to suspend
    ///   (`Sleeper.sleep(waitsForSuspension:)`).
    @discardableResult
    static func check(_ scheduler: TestScheduler, isolation: (any Actor)?, call: @autoclosure () -> String) -> Bool {
        let running = CurrentScheduler.slot
        if running == Unmanaged.passUnretained(scheduler).toOpaque() { return false }
        // Code of the synchronous capture's body (a `Task.immediate` it started runs here up to
        // its first suspension): its later jobs are the scheduler's.
        if CapturedTasks.slot == Unmanaged.passUnretained(scheduler).toOpaque(), CapturedTasks.isInsideSynchronousBody {
            return false
        }
        let cause = Cause.current(for: scheduler)
        if cause == .notCaptured, isolation == nil, scheduler.adoptCurrentTask() { return true }
        // A captured main-actor job that a synchronous drive off the main actor sent to the main
        // queue: that warning named the cause already, and the test is told once.
        if cause != .notCaptured, cause != .prefersAnotherExecutor, scheduler.core.hasWarned(.drivenOffTheMainActor) {
            return false
        }
        let isFirst = warned.withLock { entries -> Bool in
            entries.removeAll { $0.scheduler == nil }
            if entries.contains(where: { $0.scheduler === scheduler }) { return false }
            entries.append(WarnedScheduler(scheduler: scheduler, prints: 0))
            return true
        }
        guard isFirst else { return false }
        Warning.emit(message(for: scheduler, call: call(), cause: cause), about: scheduler)
        // Counted once it is out, so that a test that waits for the count finds the warning in
        // its capture (counted before, a test could close its capture between the two).
        warned.withLock { entries in
            if let index = entries.firstIndex(where: { $0.scheduler === scheduler }) { entries[index].prints += 1 }
        }
        return false
    }

    /// Why a task sleeping on the scheduler runs outside it: each names its own fix.
    enum Cause: Equatable {
        /// The task prefers another executor (`Task(executorPreference:)`,
        /// `withTaskExecutorPreference`): its jobs go there, capture or not.
        case prefersAnotherExecutor
        /// Started inside `withCapturedTasks`, yet running elsewhere: a continuation of it was
        /// resumed from outside the scheduler.
        case capturedButLeft
        /// Started inside a capture whose lifetime it still holds, so every job of it that
        /// reached the runtime's hooks stayed captured; yet running elsewhere: an actor's
        /// executor ran it, one that the world does not run (an actor that work outside the
        /// world held when the task came to it, whose thread then ran the task on, or an actor
        /// on an executor of its own).
        case ranOnByAnOutsideActor
        /// Started outside any capture (and isolated to an actor: else it was adopted).
        case notCaptured

        /// The cause that applies to the calling task.
        static func current(for scheduler: TestScheduler) -> Cause {
            let preferred = withUnsafeCurrentTask { $0?.unownedTaskExecutor }
            if let preferred, preferred != scheduler.asUnownedTaskExecutor() { return .prefersAnotherExecutor }
            guard CapturedTaskIdentity.schedulerOfCurrentTask(includingLeft: true) === scheduler else {
                return .notCaptured
            }
            // Left on purpose (a main-actor job handed to the real main actor), or after the
            // capture: no lifetime of it held any more. Else no hook saw the job that brought
            // it here: an actor's executor did.
            let stillHeld = CapturedTasks.lifetime != nil && CapturedTaskIdentity.schedulerOfCurrentTask() === scheduler
            return stillHeld ? .ranOnByAnOutsideActor : .capturedButLeft
        }
    }

    /// The message that names the fix that applies to the sleeping task: the first line says
    /// what happened and the fix, the lines after it why.
    static func message(for scheduler: TestScheduler, call: String, cause: Cause) -> String {
        switch cause {
        case .prefersAnotherExecutor:
            return """
                a task called \(call) on \(scheduler) while running outside it, on the executor it \
                prefers; prefer the scheduler instead: Task(executorPreference: scheduler).
                A task's executor preference (Task(executorPreference:), withTaskExecutorPreference) \
                sends its jobs to that executor, beside the thread that drives the scheduler, so its \
                timing cannot be deterministic. (Once per scheduler.)
                """
        case .capturedButLeft:
            return """
                a task called \(call) on \(scheduler) while running outside it, after leaving \
                withCapturedTasks; resume it from work the scheduler runs, or start it with \
                Task(executorPreference: scheduler).
                It left virtual time: a continuation of it was resumed from a thread outside the \
                scheduler (a Dispatch callback, a completion handler), so its next job went to the \
                cooperative pool, where its timing cannot be deterministic. (Once per scheduler.)
                """
        case .ranOnByAnOutsideActor:
            return """
                a task called \(call) on \(scheduler) while running outside it, on an actor's \
                executor; keep the actors the test's tasks await inside its world: made by the test, \
                shared with no work outside it, and on the default executor.
                It waited for an actor that work outside the scheduler held (an actor shared with \
                another test or with the app), or one that runs on an executor of its own, and the \
                thread that ran that actor ran the task on, beside the thread that drives the \
                scheduler, so its timing cannot be deterministic. (Once per scheduler.)
                """
        case .notCaptured:
            // The sleep itself runs on the cooperative pool whatever the task's isolation, so the
            // message cannot tell a main-actor task from another: it names the fixes for both.
            return """
                a task called \(call) on \(scheduler) while running outside it; start the task \
                inside scheduler.withCapturedTasks { … }, or Task(executorPreference: scheduler).
                The wake-up waits for the scheduler, but the task then runs on another executor, \
                beside the thread that drives the scheduler, so its timing cannot be deterministic. \
                For a task on the main actor (a @MainActor view model's Task {}), capture on the main \
                actor (a @MainActor test), or use `await scheduler.withCapturedTasks { … }` and drive \
                with `await scheduler.clock.advance(by:)`. (Once per scheduler.)
                """
        }
    }

    /// How many warnings `scheduler` has issued, printed or captured (for tests).
    static func printCount(for scheduler: TestScheduler) -> Int {
        warned.withLock { entries in entries.first { $0.scheduler === scheduler }?.prints ?? 0 }
    }
}

private struct WarnedScheduler: Sendable {
    weak var scheduler: TestScheduler?
    var prints: Int
}
