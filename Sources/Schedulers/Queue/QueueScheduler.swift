import Foundation

/// Runs actions on a GCD queue (RACQueueScheduler), each one as ``Scheduler/current``.
///
/// - ``schedule(_:)`` is one submission to ``queue`` (as `async` would make): FIFO on a serial
///   queue, in order with whatever else is queued there.
/// - ``schedule(after:_:)-(Date,_)`` converts the date with ``wallTime(with:)`` (wall clock, like
///   `dispatch_walltime`: it counts across sleep and follows clock changes).
/// - The `Duration` forms (`schedule(after: Duration)`, its repeating form, `sleep(for:)`,
///   `timer(every:)`) use `DispatchTime` instead: the monotonic uptime clock, which ignores clock
///   changes and stops while the machine sleeps. ``Scheduler/now`` says which clock each method uses.
/// - It is also a `SerialExecutor` and a `TaskExecutor` (QueueScheduler+Executor.swift).
/// - A disposed action never starts, and its closure is released at disposal, not at its due time.
/// - Repeating work is a `DispatchSourceTimer` with the given leeway. Every tick runs as the
///   current scheduler (RAC did not do this). It runs until disposed, whether or not anyone
///   retains the disposable or this scheduler; disposing cancels the source and releases the
///   action before `dispose()` returns, or, when a tick is running (the action disposing its own
///   timer, or a tick on another thread), when that tick returns: its code is using it.
///
/// Subclass it the way RAC's `RACQueueScheduler+Subclass.h` intended: override the scheduling
/// methods and run each action inside ``Scheduler/performAsCurrentScheduler(_:)`` on ``queue``.
/// A pending action keeps its scheduler alive until it runs or is disposed; with nothing
/// pending, a queue scheduler is deinitialised when its last reference goes.
open class QueueScheduler: Scheduler, @unchecked Sendable {
    /// The queue every action runs on. Actions are serial exactly when this queue is.
    public let queue: DispatchQueue

    /// How actions reach ``queue`` without a block per call (FunctionSubmission.swift, beside it).
    let submission: FunctionSubmission

    /// A scheduler running actions on `queue`, which you own. For a new serial queue of its own,
    /// use ``TargetQueueScheduler``.
    ///
    /// - Parameters:
    ///   - name: the scheduler's name; nil gives one that says the class.
    ///   - queue: where every action runs; serial, for serial actions.
    public init(name: String? = nil, queue: DispatchQueue) {
        self.queue = queue
        submission = FunctionSubmission(queue)
        super.init(name: name)
    }

    /// Queues `action` on ``queue`` (one submission). It runs there as the current scheduler unless
    /// the returned disposable is disposed first, in which case it is released at once.
    ///
    /// - Parameter action: the work to run, on ``queue``, as ``Scheduler/current``.
    /// - Returns: a disposable that stops the action from starting and releases it.
    @discardableResult
    open override func schedule(_ action: @escaping @Sendable () -> Void) -> (any Disposable)? {
        let scheduled = ScheduledAction(scheduler: self, action: action)
        submission.async(scheduled, on: queue)
        return scheduled
    }

    /// Runs `action` on ``queue`` at `date` by the wall clock (see ``wallTime(with:)``; a past
    /// date means now). Disposing it before then stops it and releases it at once.
    ///
    /// - Parameters:
    ///   - date: when to run it, by the wall clock; a past date means as soon as possible.
    ///   - action: the work to run, on ``queue``, as ``Scheduler/current``.
    /// - Returns: a disposable that stops the action from starting and releases it.
    @discardableResult
    open override func schedule(after date: Date, _ action: @escaping @Sendable () -> Void) -> (any Disposable)? {
        let scheduled = ScheduledAction(scheduler: self, action: action)
        if date.timeIntervalSinceNow > 0 {
            #if DEBUG
            ClockProbe.record(.wall)
            #endif
            submission.asyncAfter(scheduled, wallDeadline: QueueScheduler.wallTime(with: date), on: queue)
        } else {
            // Already due (or NaN): exactly what Dispatch does with a past deadline, minus the
            // timer. `Date()` read back as a Double can land ~100 ns in the future, which made
            // Dispatch arm a real timer for "now": 5x the cost of an async (measured).
            submission.async(scheduled, on: queue)
        }
        return scheduled
    }

    /// Runs `action` on ``queue`` first at `date` (wall clock), then every `interval` seconds,
    /// until disposed. See the type's documentation for its lifetime.
    ///
    /// - Parameters:
    ///   - date: the first run, by the wall clock.
    ///   - interval: seconds between runs; finite and greater than zero.
    ///   - leeway: how many seconds late a run may be; zero or more.
    ///   - action: the work to run each time, on ``queue``, as ``Scheduler/current``.
    /// - Returns: a disposable that cancels the timer and releases the action.
    /// - Precondition: `interval` is finite and greater than zero; `leeway` is zero or more.
    @discardableResult
    open override func schedule(
        after date: Date, repeatingEvery interval: TimeInterval, withLeeway leeway: TimeInterval = 0,
        _ action: @escaping @Sendable () -> Void
    ) -> (any Disposable)? {
        RepeatPreconditions.check(interval: interval, leeway: leeway)
        #if DEBUG
        ClockProbe.record(.wall)
        #endif
        return RepeatingTimer(
            scheduler: self, start: QueueScheduler.wallTime(with: date),
            intervalNanoseconds: RepeatPreconditions.nanoseconds(interval),
            leewayNanoseconds: RepeatPreconditions.nanoseconds(leeway), action: action
        ) { source, start, interval, leeway in
            source.schedule(wallDeadline: start, repeating: interval, leeway: leeway)
        }
    }

    /// Runs `action` on ``queue`` as the current scheduler, handing it a `reschedule` closure;
    /// the rules are ``Scheduler/scheduleRecursive(_:)``'s.
    ///
    /// On a `QueueScheduler` or ``TargetQueueScheduler`` itself, each iteration queues the one
    /// object the chain reuses, rather than a full ``schedule(_:)``: no disposable per iteration.
    /// Disposing the chain releases the action at once (or, when a run is in progress, when it
    /// returns); iterations already queued then return without running it. A subclass gets the base implementation, built on its ``schedule(_:)``.
    ///
    /// - Parameter action: the work; it gets a closure that asks for one more run.
    /// - Returns: a disposable that stops the chain.
    @discardableResult
    open override func scheduleRecursive(
        _ action: @escaping @Sendable (_ reschedule: @escaping @Sendable () -> Void) -> Void
    ) -> (any Disposable)? {
        guard isPackageQueueScheduler else { return super.scheduleRecursive(action) }
        return QueueRecursiveChain.start(on: self, action)
    }

    // MARK: Durations: the monotonic clock (Time/QueueScheduler+UptimeClock.swift)

    /// Runs `action` on ``queue`` once `delay` has passed on the monotonic clock (`DispatchTime`;
    /// see ``Scheduler/now``). A zero or negative delay is queued at once. Disposing it before then
    /// stops it and releases it at once.
    ///
    /// A subclass that does not override this gets ``Scheduler``'s default instead, which goes
    /// through its own Date-based methods.
    ///
    /// - Parameters:
    ///   - delay: how long to wait before running `action`.
    ///   - action: the work to run on ``queue``.
    /// - Returns: a disposable that stops the action from starting.
    @discardableResult
    open override func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> (any Disposable)? {
        guard isPackageQueueScheduler else { return super.schedule(after: delay, action) }
        return scheduleOnUptimeClock(after: delay, action)
    }

    /// Runs `action` on ``queue`` first once `delay` has passed on the monotonic clock, then every
    /// `interval`, until disposed: a `DispatchSourceTimer` with the given leeway. See the type's
    /// documentation for its lifetime. A subclass that does not override this gets
    /// ``Scheduler``'s default instead, which goes through its own Date-based repeating method.
    ///
    /// - Parameters:
    ///   - delay: until the first run; zero or negative means as soon as possible.
    ///   - interval: between runs; must be greater than zero.
    ///   - leeway: how late a run may be; zero or more.
    ///   - action: the work to run on ``queue`` at every tick.
    /// - Returns: a disposable that cancels the timer and releases `action`.
    /// - Precondition: `interval > .zero` and `leeway >= .zero`.
    @discardableResult
    open override func schedule(
        after delay: Duration, repeatingEvery interval: Duration, leeway: Duration = .zero,
        _ action: @escaping @Sendable () -> Void
    ) -> (any Disposable)? {
        guard isPackageQueueScheduler else {
            return super.schedule(after: delay, repeatingEvery: interval, leeway: leeway, action)
        }
        RepeatPreconditions.check(interval: interval, leeway: leeway)
        return scheduleOnUptimeClock(after: delay, repeatingEvery: interval, leeway: leeway, action)
    }
}

extension QueueScheduler {
    /// True for `QueueScheduler` and ``TargetQueueScheduler`` themselves, whose fast paths (the
    /// `Duration` forms straight to Dispatch, the self-posting recursion chain) skip
    /// ``schedule(_:)`` and the Date-based methods. A subclass may have overridden those
    /// (RACQueueScheduler+Subclass) and expect every action to pass through them, so unless it
    /// overrides the fast-path methods too, it gets the generic implementations, which do.
    var isPackageQueueScheduler: Bool {
        let type = type(of: self)
        return type == QueueScheduler.self || type == TargetQueueScheduler.self
    }
}
