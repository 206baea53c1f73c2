#if compiler(>=6.3) && os(Linux)
// `SchedulingExecutor` is SPI of the 6.3 standard library (`ExperimentalScheduling`): Linux
// toolchains ship the interface that declares it; Apple SDKs are not known to (Platform notes,
// "Platform branches"), so Apple platforms build without this file and their real-clock sleeps
// go unnamed.
@_spi(ExperimentalScheduling) import _Concurrency
import Dispatch

/// Where a real-clock sleep made in a ``TestScheduler``'s virtual time is seen, so that
/// ``RealClockSleepWarning`` can name it.
///
/// Why here and not in a runtime hook: from Swift 6.3, `Task.sleep` and the real clocks' `sleep`
/// no longer call `swift_task_enqueueGlobalWithDelay` or `swift_task_enqueueGlobalWithDeadline`
/// (whose exported `_hook` variables still exist but are never consulted for a sleep). They ask
/// for the current *scheduling* executor: the executor the sleeping code runs on, else the
/// task's preferred executor, else the task executor of the job running on this thread, else the
/// default global executor; and they hand the wake-up job to it with the deadline and its clock.
/// A captured job runs with this scheduler as its task executor (`runSynchronously(on:)` in
/// TestScheduler+Executor.swift), and so does every job of a task that prefers the scheduler,
/// and `Task.sleep` and `Clock.sleep` are nonisolated, so a captured main-actor task hops off
/// the main actor to sleep and the hop is captured too. So every real-clock sleep of a task in
/// virtual time arrives here, and nothing else does: other tasks (tests running in parallel, the
/// test runner) sleep through the default executor as before.
///
/// The sleep still lasts its real duration: it cannot be made exact (its deadline is absolute on
/// a clock the test does not own), so the scheduler names it. But its wake-up comes back through
/// the scheduler: when the deadline passes, the wake-up job is queued on the scheduler like a
/// captured job (due at `now`), and runs at the next drive. Handing it to the default global
/// executor instead, as the runtime would, let the task's next step depend on timing: a wake-up
/// that fired before the task had finished suspending (a 1 ms sleep on a busy machine) let the
/// task go on inside the drive, in virtual time; a later one sent it to the cooperative pool,
/// out of virtual time, or (for a main-actor task) to the real main actor whenever no capture
/// held the hooks at that instant. Measured: 2 runs in 30 of RealClockSleepWarningTests hung
/// on 2 loaded cores. Queued on the scheduler, the wake-up resumes the task from work the
/// scheduler runs, so the task stays captured (CapturedTasks.swift, rule 1), whatever the timing.
// Declared here, publicly, because the SPI conformance below implies `Executor` too, and an
// implied conformance would take the SPI's visibility: the public `TaskExecutor` conformance
// (TestScheduler+Executor.swift) needs it public.
extension TestScheduler: Executor {}

// SPI because the protocol is: the conformance is for the runtime's dynamic cast, not for users.
@_spi(SchedulersInternal)
extension TestScheduler: SchedulingExecutor {
    /// Queues `job` (the wake-up of a sleep) on this scheduler once `instant` on `clock` has
    /// passed in real time; a sleep on a real clock (`ContinuousClock`, `SuspendingClock`) first
    /// gets the scheduler's one warning. Any other clock's sleep is handed, unchanged, to the
    /// default global executor, as the runtime would have without this scheduler.
    ///
    /// Called by the runtime, from the thread running the sleeping task's job. The wake-up is
    /// queued from a Dispatch thread, and runs on the thread that next drives the scheduler;
    /// if the scheduler is deinitialised first, it is released without running, like every job
    /// pending on a deinitialised scheduler: the task never finishes, and nothing of it runs
    /// after its test.
    public func enqueue<C: _Concurrency.Clock>(
        _ job: consuming ExecutorJob, at instant: C.Instant, tolerance: C.Duration?, clock: C
    ) {
        let realClock: RealClockSleepWarning.RealClock? =
            clock is ContinuousClock ? .continuous : clock is SuspendingClock ? .suspending : nil
        if realClock == nil, let global = globalConcurrentExecutor as? any SchedulingExecutor {
            global.enqueue(job, at: instant, tolerance: tolerance, clock: clock)
            return
        }
        if let realClock { RealClockSleepWarning.warn(self, clock: realClock) }
        // Both real clocks measure in `Duration`. (Another clock reaches this line only on a
        // runtime whose default executor cannot take a deadline: it is woken after its delay
        // if that is a `Duration`, else at once.)
        let delay = (clock.now.duration(to: instant) as? Duration) ?? .zero
        let wakeUp = UnownedJob(job)
        // Weak: a sleeping task must not keep its test's scheduler alive.
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(delay.clampedNanoseconds)) {
            [weak self] in
            // Gone: released without running, like every job pending on a deinitialised
            // scheduler, so nothing of a finished test's task runs after it (TestScheduler.swift,
            // "Lifetime").
            self?.enqueueWakeUp(wakeUp)
        }
    }

    /// Queues the wake-up of a real-clock sleep at ``now``, FIFO with actions and jobs.
    ///
    /// It runs on the driving thread as a job of the default global executor, which is where the
    /// runtime would have run it: so it resumes the sleeping task there and then, inside the
    /// drive. Run with this scheduler as its task executor (as ``enqueueCaptured(_:)`` runs a
    /// captured job), the wake-up, a task of its own that prefers no executor, first hops off to
    /// the global pool (measured), and resumes the sleeper later, out of the drive's order.
    private func enqueueWakeUp(_ job: UnownedJob) {
        let global = globalConcurrentExecutor.asUnownedTaskExecutor()
        _ = core.enqueue(interval: nil, action: { job.runSynchronously(on: global) }) { now in now }
    }
}
#endif
