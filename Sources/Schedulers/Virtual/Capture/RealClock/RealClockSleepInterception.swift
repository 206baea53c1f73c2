#if compiler(>=6.3) && os(Linux)
// `SchedulingExecutor` is SPI of the 6.3 standard library (`ExperimentalScheduling`): Linux
// toolchains ship the interface that declares it; Apple SDKs are not known to (Platform notes,
// "Platform branches"), so Apple platforms build without this file and their real-clock sleeps
// go unnamed.
@_spi(ExperimentalScheduling) import _Concurrency
import CurrentSchedulerSlot
import Dispatch

/// Where a real-clock sleep made in a ``TestScheduler``'s virtual time is seen, and made to
/// sleep in virtual time: it wakes `d` after ``TestScheduler/now``, `d` being what it asked for,
/// as if it had slept on ``TestScheduler/clock``.
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
/// Which entry each sleep takes (measured on the 6.3.1 runtime, RealClockSleepTests):
/// `Task.sleep(for:)`, `Task.sleep(until:clock:)`, a clock's `sleep(for:)` and `sleep(until:)`
/// arrive at `enqueue(_:at:…)` with an absolute instant (`sleep(for:)` is inlined into the
/// caller, which adds the duration to the real `now`), and so does `Task.sleep(nanoseconds:)`.
/// The instant was read in this world, where the real clocks read virtual time (WorldClock.swift),
/// so it is a virtual time exactly; a sleep that arrives at `enqueue(_:after:…)` has its delay
/// already.
///
/// The wake-up is queued on the scheduler at its virtual due time, so the task goes on in the
/// drive that reaches it, still captured (CapturedTasks.swift, rule 1), whatever the timing.
// Declared here, publicly, because the SPI conformance below implies `Executor` too, and an
// implied conformance would take the SPI's visibility: the public `TaskExecutor` conformance
// (TestScheduler+Executor.swift) needs it public.
extension TestScheduler: Executor {}

// SPI because the protocol is: the conformance is for the runtime's dynamic cast, not for users.
@_spi(SchedulersInternal)
extension TestScheduler: SchedulingExecutor {
    /// Queues `job` (the wake-up of a sleep) on this scheduler, due `delay` after ``now``, when
    /// `clock` is a real clock (`ContinuousClock`, `SuspendingClock`): the sleep lasts `delay`
    /// of virtual time, exactly. Any other clock's sleep is handed, unchanged, to the default
    /// global executor, as the runtime would have without this scheduler.
    ///
    /// Called by the runtime, from the thread running the sleeping task's job. The wake-up runs
    /// on the thread that drives the scheduler to its due time; if the scheduler is
    /// deinitialised first, it is released without running, like every job pending on a
    /// deinitialised scheduler.
    public func enqueue<C: _Concurrency.Clock>(
        _ job: consuming ExecutorJob, after delay: C.Duration, tolerance: C.Duration?, clock: C
    ) {
        guard clock is ContinuousClock || clock is SuspendingClock, let delay = delay as? Duration else {
            forward(job, at: clock.now.advanced(by: delay), tolerance: tolerance, clock: clock)
            return
        }
        let wakeUp = UnownedJob(job)
        let attoseconds = max(delay.attoseconds, 0)
        enqueueWakeUp(wakeUp) { now in now + VirtualTime(attoseconds: attoseconds) }
    }

    /// Queues `job` (the wake-up of a sleep) on this scheduler, due at the virtual time that
    /// `instant` on `clock` stands for, when `clock` is a real clock (`ContinuousClock`,
    /// `SuspendingClock`): a sleep of `d` wakes `d` after ``now``, and a deadline chained on an
    /// earlier one keeps its distance to it, exactly, since the instant was read in this world,
    /// where the real clocks read virtual time (WorldClock.swift). An instant read outside it (a
    /// captured task that a thread outside the world ran on: reported as such) is due as far
    /// after ``now`` as it lies after the real clock's `now` when it arrives. Any other clock's
    /// sleep is handed, unchanged, to the default global executor, as the runtime would have
    /// without this scheduler.
    ///
    /// Called by the runtime, from the thread running the sleeping task's job. The wake-up runs
    /// on the thread that drives the scheduler to its due time; if the scheduler is
    /// deinitialised first, it is released without running, like every job pending on a
    /// deinitialised scheduler.
    public func enqueue<C: _Concurrency.Clock>(
        _ job: consuming ExecutorJob, at instant: C.Instant, tolerance: C.Duration?, clock: C
    ) {
        let deadline: Int128
        let isContinuous: Bool
        if let instant = instant as? ContinuousClock.Instant {
            deadline = ContinuousClock().systemEpoch.duration(to: instant).attoseconds
            isContinuous = true
        } else if let instant = instant as? SuspendingClock.Instant {
            deadline = SuspendingClock().systemEpoch.duration(to: instant).attoseconds
            isContinuous = false
        } else {
            forward(job, at: instant, tolerance: tolerance, clock: clock)
            return
        }
        let wakeUp = UnownedJob(job)
        if let clock = core.worldClockPointer, schedulers_world_clock_get() == clock {
            let due = WorldClock.virtualTime(ofRealInstant: deadline, continuous: isContinuous, on: clock)
            enqueueWakeUp(wakeUp) { _ in due }
            return
        }
        let realNow = withRealReadings {
            isContinuous
                ? ContinuousClock().systemEpoch.duration(to: .now).attoseconds
                : SuspendingClock().systemEpoch.duration(to: .now).attoseconds
        }
        let remaining = VirtualTime(attoseconds: max(deadline - realNow, 0))
        enqueueWakeUp(wakeUp) { now in now + remaining }
    }

    private func forward<C: _Concurrency.Clock>(
        _ job: consuming ExecutorJob, at instant: C.Instant, tolerance: C.Duration?, clock: C
    ) {
        if let global = globalConcurrentExecutor as? any SchedulingExecutor {
            global.enqueue(job, at: instant, tolerance: tolerance, clock: clock)
            return
        }
        // A runtime whose default executor cannot take a deadline: woken after its delay if
        // that is a `Duration`, else at once.
        let delay = (clock.now.duration(to: instant) as? Duration) ?? .zero
        let wakeUp = UnownedJob(job)
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(delay.clampedNanoseconds)) {
            wakeUp.runSynchronously(on: globalConcurrentExecutor.asUnownedTaskExecutor())
        }
    }

    /// Queues the wake-up of a real-clock sleep at the virtual time `due` gives (from ``now``,
    /// read under the scheduler's lock), FIFO with actions and jobs due then.
    ///
    /// It runs on the driving thread as a job of the default global executor, which is where the
    /// runtime would have run it: so it resumes the sleeping task there and then, inside the
    /// drive. Run with this scheduler as its task executor (as ``enqueueCaptured(_:)`` runs a
    /// captured job), the wake-up, a task of its own that prefers no executor, first hops off to
    /// the global pool (measured), and resumes the sleeper later, out of the drive's order.
    private func enqueueWakeUp(_ job: UnownedJob, due: (VirtualTime) -> VirtualTime) {
        let global = globalConcurrentExecutor.asUnownedTaskExecutor()
        core.enqueueWithoutDisposable(action: wakeUpOfBody { job.runSynchronously(on: global) }, due: due)
    }
}
#endif
