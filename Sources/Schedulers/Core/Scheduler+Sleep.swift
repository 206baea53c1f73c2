import Foundation

extension Scheduler {
    /// Suspends the calling task until `duration` has passed on this scheduler's clock: the
    /// monotonic clock on a queue scheduler (see `schedule(after: Duration)` for what that means
    /// across sleep and clock changes), virtual time on a ``TestScheduler``.
    ///
    /// The wake-up is an action scheduled with `schedule(after: Duration)`. When it runs, the task
    /// resumes on its own executor (which is this scheduler when the task prefers it as a
    /// `TaskExecutor`; on a ``TestScheduler`` it then continues within the same `advance`).
    ///
    /// - Parameter duration: how long to sleep on this scheduler's clock; zero or negative resumes
    ///   as soon as possible (on a ``TestScheduler``, at once: virtual time is already there).
    /// - Throws: `CancellationError` as soon as the task is cancelled (before or during the
    ///   sleep): the wake-up is disposed and the task does not wait for the scheduler. Also
    ///   thrown if the scheduler releases the wake-up without running it (a deinitialised
    ///   ``TestScheduler``).
    ///
    /// On a ``TestScheduler``, a task that runs on the scheduler (it prefers it with
    /// `Task(executorPreference:)`, or a capture took it) wakes in the drive that reaches its
    /// time. So does a nonisolated task outside every world (a plain or detached `Task {}` in a
    /// test that captures nothing, an `async` test's own task): it joins the scheduler's world,
    /// and the drive that wakes it runs it on to its next suspension before it returns, so
    /// `advance(by:)` returns with its effects done (TestScheduler+AdoptedTasks.swift). A task
    /// that prefers another executor, or one isolated to an actor, wakes in the drive but then
    /// continues there, beside the driving thread, which no test can make deterministic: the
    /// scheduler reports a warning (a failure of the running test) naming the fix, once per
    /// scheduler.
    ///
    /// The ``ImmediateScheduler`` does not block here: it sleeps on a background queue's
    /// monotonic clock instead, since blocking would hold a thread of the cooperative pool.
    ///
    /// It runs in the caller's isolation (`nonisolated(nonsending)`): the wake-up is scheduled
    /// from the caller's own job before it suspends, so a caller isolated to an actor (the main
    /// actor) does not hop off it first, and its wake-up is due before work enqueued meanwhile.
    nonisolated(nonsending)
    public func sleep(for duration: Duration) async throws {
        var adoption: AdoptedWakeUp?
        if let test = self as? TestScheduler {
            // Virtual time is already there: nothing to wait for, and no drive is needed.
            if duration <= .zero { return try Task.checkCancellation() }
            if DetachedSleepWarning.check(test, isolation: #isolation, call: "sleep(for:)") { adoption = AdoptedWakeUp(scheduler: test) }
        }
        let target = asyncTarget
        try await Sleeper.sleep(adoption: adoption) { wake in target.schedule(after: duration, wake) }
    }

    /// Suspends the calling task until `date` on this scheduler's clock: the wall clock on a queue
    /// scheduler (like ``schedule(after:_:)-(Date,_)``: a clock change moves the wake-up; time asleep
    /// counts), virtual time on a ``TestScheduler``. A past date resumes as soon as possible.
    ///
    /// - Parameter date: when to resume, on this scheduler's clock.
    /// - Throws: `CancellationError`, as ``sleep(for:)``, which also says when a
    ///   ``TestScheduler`` warns.
    nonisolated(nonsending)
    public func sleep(until date: Date) async throws {
        var adoption: AdoptedWakeUp?
        if let test = self as? TestScheduler {
            if date <= test.now { return try Task.checkCancellation() }
            if DetachedSleepWarning.check(test, isolation: #isolation, call: "sleep(until:)") { adoption = AdoptedWakeUp(scheduler: test) }
        }
        let target = asyncTarget
        try await Sleeper.sleep(adoption: adoption) { wake in target.schedule(after: date, wake) }
    }

    /// Where the async API schedules its wake-ups: this scheduler, except that the immediate
    /// scheduler (which blocks and cannot repeat) hands them to a background scheduler.
    var asyncTarget: Scheduler {
        self is ImmediateScheduler ? immediateAsyncScheduler : self
    }

    /// The date a tick reports: the running scheduler's ``now`` (virtual on a ``TestScheduler``
    /// or a virtual-time subclass), else the wall clock's.
    static var currentDate: Date {
        CurrentScheduler.value?.now ?? Date()
    }
}

private let immediateAsyncScheduler = TargetQueueScheduler(
    priority: .default, name: "org.schedulers.immediateScheduler.asyncScheduler")
