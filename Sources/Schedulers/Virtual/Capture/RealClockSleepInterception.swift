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
/// The sleep is then handed, unchanged, to the default global executor, exactly where the
/// runtime would have sent it: it still lasts its real duration. It cannot be made exact (its
/// deadline is absolute on a clock the test does not own), so the scheduler only names it.
// Declared here, publicly, because the SPI conformance below implies `Executor` too, and an
// implied conformance would take the SPI's visibility: the public `TaskExecutor` conformance
// (TestScheduler+Executor.swift) needs it public.
extension TestScheduler: Executor {}

// SPI because the protocol is: the conformance is for the runtime's dynamic cast, not for users.
@_spi(SchedulersInternal)
extension TestScheduler: SchedulingExecutor {
    /// Hands `job` (the wake-up of a sleep) to the default global executor at `instant` on
    /// `clock`, as the runtime would have without this scheduler; a sleep on a real clock
    /// (`ContinuousClock`, `SuspendingClock`) first gets the scheduler's one warning.
    ///
    /// Called by the runtime, from the thread running the sleeping task's job.
    public func enqueue<C: _Concurrency.Clock>(
        _ job: consuming ExecutorJob, at instant: C.Instant, tolerance: C.Duration?, clock: C
    ) {
        if clock is ContinuousClock {
            RealClockSleepWarning.warn(self, clock: .continuous)
        } else if clock is SuspendingClock {
            RealClockSleepWarning.warn(self, clock: .suspending)
        }
        if let global = globalConcurrentExecutor as? any SchedulingExecutor {
            global.enqueue(job, at: instant, tolerance: tolerance, clock: clock)
        } else {
            // Not reached on the runtimes this file is built for (the default executor schedules);
            // kept so that a runtime whose default executor cannot take a deadline still wakes
            // the task, after the same real delay.
            let delay = clock.now.duration(to: instant)
            let seconds = (delay as? Duration).map { Double($0.components.seconds) + Double($0.components.attoseconds) * 1e-18 } ?? 0
            let wakeUp = UnownedJob(job)
            DispatchQueue.global().asyncAfter(deadline: .now() + max(seconds, 0)) {
                globalConcurrentExecutor.enqueue(wakeUp)
            }
        }
    }
}
#endif
