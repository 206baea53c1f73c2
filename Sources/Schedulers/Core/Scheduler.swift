import Foundation

/// Decides when and where work runs: RACScheduler.
///
/// `Scheduler` is abstract. Its concrete subclasses are ``ImmediateScheduler`` (inline),
/// ``QueueScheduler`` and ``TargetQueueScheduler`` (a serial GCD queue), ``SubscriptionScheduler``
/// (inline inside another scheduler, else in the background) and ``TestScheduler`` (virtual time).
///
/// Every scheduler in this package is serial: actions scheduled on one never run concurrently
/// with each other (a ``QueueScheduler`` over a concurrent queue you supply is the exception).
/// A scheduling method returns a ``/Disposables/Disposable``, or nil when the work cannot be cancelled
/// (it has already run). Disposing it before the action starts guarantees the action never
/// starts; disposing it once the action is running does not interrupt it.
///
/// Subclasses override ``schedule(_:)``, ``schedule(after:_:)-(Date,_)`` and
/// ``schedule(after:repeatingEvery:withLeeway:_:)``, and run each action inside
/// ``performAsCurrentScheduler(_:)`` so that ``current`` is right while it runs. A subclass that
/// keeps its own time overrides ``now`` too, and one that stores its pending work itself
/// overrides ``storesPendingWork``; the relative and `Duration` forms then follow from those.
open class Scheduler: @unchecked Sendable, CustomStringConvertible {
    // `@unchecked`: the only stored property is an immutable String; subclasses that add
    // mutable state guard it themselves (every one in this package keeps it in a `Lock`, a TSan-visible Mutex).

    /// How urgent work on a ``TargetQueueScheduler`` created with ``TargetQueueScheduler/init(priority:name:)``
    /// is, as a GCD quality of service: `high` = userInitiated, `default` = default,
    /// `low` = utility, `background` = background.
    public enum Priority: Sendable {
        /// GCD's `.userInitiated`: work the user is waiting for.
        case high
        /// GCD's `.default`.
        case `default`
        /// GCD's `.utility`: long-running work the user is not waiting for.
        case low
        /// GCD's `.background`: maintenance the user does not see.
        case background
    }

    /// A human-readable name, shown in ``description`` and, for queue schedulers, as the queue
    /// label, so a debugger or a crash log says which scheduler ran an action.
    public let name: String

    /// - Parameter name: the scheduler's name; nil gives a name that says the class
    ///   (RAC's `<Class>.anonymousScheduler`).
    public init(name: String? = nil) {
        self.name = name ?? Scheduler.anonymousName(for: Self.self)
    }

    /// The default name for an unnamed scheduler of `type`.
    package static func anonymousName(for type: Scheduler.Type) -> String {
        "org.schedulers.\(type).anonymousScheduler"
    }

    /// The class and the name, e.g. `<TargetQueueScheduler: my.queue>`.
    open var description: String {
        "<\(type(of: self)): \(name)>"
    }

    // MARK: Shared schedulers

    /// Runs actions synchronously on the calling thread. See ``ImmediateScheduler``.
    @inlinable
    public static var immediate: Scheduler { immediateScheduler }

    /// Runs actions on the main queue, always asynchronously (even when called on the main queue),
    /// in FIFO order. On Linux the main queue drains only while the main thread runs its run loop
    /// or `dispatchMain()`.
    @inlinable
    public static var main: Scheduler { mainScheduler }

    /// Runs actions inline when already inside a scheduler, else in the background. See
    /// ``SubscriptionScheduler``.
    @inlinable
    public static var subscription: Scheduler { subscriptionScheduler }

    /// The scheduler whose action is running on this thread right now; else ``main`` when on the
    /// main thread; else nil.
    ///
    /// Thread-local and nesting-safe: a scheduler sets it while one of its actions runs and
    /// restores the previous value afterwards, so several threads running actions of one
    /// scheduler each see it. ``ImmediateScheduler`` leaves it unchanged.
    @inlinable
    public static var current: Scheduler? {
        CurrentScheduler.value
    }

    // MARK: Scheduling (to override)

    /// Schedules `action` to run as soon as possible, after anything already scheduled.
    ///
    /// - Parameter action: the work to run, on this scheduler, as ``current``.
    /// - Returns: a disposable that stops the action from starting, or nil if it cannot be cancelled.
    @discardableResult
    open func schedule(_ action: @escaping @Sendable () -> Void) -> (any Disposable)? {
        Scheduler.subclassMustOverride(self, "schedule(_:)")
    }

    /// Schedules `action` to run at or after `date`.
    ///
    /// - Parameters:
    ///   - date: when to run it; a past date means as soon as possible.
    ///   - action: the work to run, on this scheduler, as ``current``.
    /// - Returns: a disposable that stops the action from starting, or nil if it cannot be cancelled.
    @discardableResult
    open func schedule(after date: Date, _ action: @escaping @Sendable () -> Void) -> (any Disposable)? {
        Scheduler.subclassMustOverride(self, "schedule(after:_:)")
    }

    /// Schedules `action` to run `delay` seconds after ``now``. Unless a subclass overrides it,
    /// this is `schedule(after: now.addingTimeInterval(delay), action)`, so it counts on this
    /// scheduler's own clock (see ``now``).
    ///
    /// - Parameters:
    ///   - delay: seconds after ``now``; zero or less means as soon as possible.
    ///   - action: the work to run, on this scheduler, as ``current``.
    /// - Returns: a disposable that stops the action from starting, or nil if it cannot be cancelled.
    @discardableResult
    open func schedule(afterDelay delay: TimeInterval, _ action: @escaping @Sendable () -> Void) -> (any Disposable)? {
        schedule(after: now.addingTimeInterval(delay), action)
    }

    /// Schedules `action` to run first at `date`, then every `interval` seconds until disposed.
    ///
    /// - Parameters:
    ///   - date: the first run; a past date means as soon as possible.
    ///   - interval: seconds between runs; must be finite and greater than zero.
    ///   - leeway: how many seconds late a run may be, letting the system coalesce wake-ups;
    ///     must be zero or more (not NaN).
    ///   - action: the work to run each time, on this scheduler, as ``current``.
    /// - Returns: a disposable that stops future runs and releases the action. A run already in
    ///   progress completes, and the action is released when it returns.
    @discardableResult
    open func schedule(
        after date: Date, repeatingEvery interval: TimeInterval, withLeeway leeway: TimeInterval = 0,
        _ action: @escaping @Sendable () -> Void
    ) -> (any Disposable)? {
        Scheduler.subclassMustOverride(self, "schedule(after:repeatingEvery:withLeeway:_:)")
    }

    /// Schedules `action`, handing it a `reschedule` closure (RAC's `-scheduleRecursiveBlock:`).
    ///
    /// - Calls to `reschedule` made while `action` runs are collected and performed, one
    ///   `schedule(_:)` each, after it returns, so recursion never grows the stack.
    /// - A call made after `action` has returned (from a callback, say) reschedules at once.
    /// - Disposing the returned disposable stops the chain: no further run starts, and every
    ///   iteration requested and not yet started (two, if a run called `reschedule` twice) is
    ///   cancelled and releases the action before `dispose()` returns, even if a `reschedule`
    ///   closure is still kept somewhere. The one exception is a run in progress (the action
    ///   disposing its own chain, or a run on another thread): its code is using the action's
    ///   captures, so they are released when that run returns, not before.
    ///
    /// Each run happens wherever ``schedule(_:)`` puts it. Memory stays constant however long the
    /// chain runs.
    ///
    /// - Parameter action: the work to run each time; it receives `reschedule`, which asks for one
    ///   more run.
    /// - Returns: a disposable that stops the chain: no run starts after `dispose()` returns.
    @discardableResult
    open func scheduleRecursive(
        _ action: @escaping @Sendable (_ reschedule: @escaping @Sendable () -> Void) -> Void
    ) -> (any Disposable)? {
        RecursiveChain.start(on: self, action)
    }

    // MARK: Time

    /// This scheduler's notion of the current time: `Date()` unless a subclass overrides it; a
    /// ``TestScheduler``'s virtual time.
    ///
    /// ## How a scheduler tells time
    ///
    /// Every relative method counts from one of three clocks, and which one is decided here and
    /// in the overrides this documents, nowhere else:
    ///
    /// | Method | Default (a subclass of your own) | Package's GCD schedulers | ``TestScheduler`` |
    /// |---|---|---|---|
    /// | ``schedule(after:_:)-(Date,_)``, repeating `after: Date` | the subclass's | wall clock (`DispatchWallTime`) | virtual |
    /// | ``schedule(afterDelay:_:)`` | `now + delay` | wall clock (`now` is `Date()`) | virtual |
    /// | `Duration` forms, `sleep(for:)`, `timer(every:)` | `now + delay`, through the Date-based methods | monotonic (`DispatchTime`) | virtual |
    ///
    /// - **Wall clock** (`DispatchWallTime`, `Date`): a deadline is a moment of the calendar. If the
    ///   system clock is set forward an hour, a deadline an hour away fires at once; set back, it
    ///   fires an hour late. Time the machine spends asleep counts. Use it for "at 9:00".
    /// - **Monotonic clock** (`DispatchTime`: `CLOCK_MONOTONIC` on Linux, `mach_absolute_time` on
    ///   Apple platforms, the clock of `SuspendingClock`): clock changes do not affect it, but it
    ///   stops while the machine sleeps. Use it for delays, timeouts and periods.
    /// - **Virtual** (``TestScheduler``, or a subclass of your own that overrides `now`): nothing
    ///   passes until the test drives the scheduler.
    ///
    /// The package's GCD schedulers are ``QueueScheduler`` and ``TargetQueueScheduler`` themselves,
    /// ``Scheduler/main`` and ``Scheduler/mainInline``. A subclass of ``QueueScheduler`` that does
    /// not override the `Duration` forms gets the defaults, so they go through its own Date-based
    /// methods (RACQueueScheduler+Subclass: its overrides see every action). The
    /// ``SubscriptionScheduler`` uses the clock of `Scheduler.current ?? its background scheduler`.
    /// The ``ImmediateScheduler`` blocks the calling thread until the deadline (monotonic for a
    /// `Duration`, wall clock for a date) and cannot repeat.
    ///
    /// The files that implement this are in `Sources/Schedulers/Time/`.
    open var now: Date {
        Date()
    }

    /// Schedules `action` to run once `delay` has passed on this scheduler's clock: monotonic on the
    /// package's GCD schedulers, virtual on a ``TestScheduler`` (see ``now``). A zero or negative
    /// delay means as soon as possible.
    ///
    /// Where and how it runs is as for ``schedule(after:_:)-(Date,_)``: on a ``QueueScheduler`` on its
    /// queue, as the current scheduler; a disposed action never starts and is released at once.
    ///
    /// Default: ``schedule(afterDelay:_:)`` with the delay in seconds, i.e. `now + delay` through
    /// the Date-based method.
    ///
    /// - Parameters:
    ///   - delay: how long to wait before running `action`.
    ///   - action: the work to run.
    /// - Returns: a disposable that stops the action from starting, or nil if it cannot be cancelled.
    @discardableResult
    open func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> (any Disposable)? {
        schedule(afterDelay: delay.timeInterval, action)
    }

    /// Schedules `action` to run first once `delay` has passed on this scheduler's clock
    /// (monotonic on the package's GCD schedulers, virtual on a ``TestScheduler``; see ``now``),
    /// then every `interval`, until disposed.
    ///
    /// Like the Date-based ``schedule(after:repeatingEvery:withLeeway:_:)``, it runs until disposed
    /// whether or not anyone retains the returned disposable (on a ``QueueScheduler``, even when
    /// the scheduler object is released), every run as the current scheduler.
    ///
    /// Default: the Date-based repeating method, starting at `now + delay`.
    ///
    /// - Parameters:
    ///   - delay: until the first run; zero or negative means as soon as possible.
    ///   - interval: between runs; must be greater than zero.
    ///   - leeway: how late a run may be, so the system can coalesce wake-ups; zero or more.
    ///     A ``TestScheduler`` ignores it.
    ///   - action: the work to run at every occurrence.
    /// - Returns: a disposable that stops future runs and releases the action. A run already in
    ///   progress completes, and the action is released when it returns.
    /// - Precondition: `interval > .zero` and `leeway >= .zero`; the message names this method
    ///   and the value. Not supported on the ``ImmediateScheduler`` (a precondition failure).
    @discardableResult
    open func schedule(
        after delay: Duration, repeatingEvery interval: Duration, leeway: Duration = .zero,
        _ action: @escaping @Sendable () -> Void
    ) -> (any Disposable)? {
        RepeatPreconditions.check(interval: interval, leeway: leeway)
        return schedule(
            after: now.addingTimeInterval(delay.timeInterval), repeatingEvery: interval.timeInterval,
            withLeeway: leeway.timeInterval, action)
    }

    // MARK: Lifetime

    /// True for a scheduler that keeps its pending work in memory it owns (a virtual-time queue)
    /// instead of handing it to a GCD queue. Work scheduled on such a scheduler (a
    /// ``scheduleRecursive(_:)`` chain, a timer sequence, a sleeping task) never keeps it alive,
    /// since the scheduler's own storage would hold that work and the work would hold the
    /// scheduler: a cycle nothing breaks once the test drops the scheduler.
    ///
    /// Default false. ``TestScheduler`` returns true; a virtual-time subclass of your own should too.
    open var storesPendingWork: Bool { false }

    // MARK: For subclasses

    /// Runs `action` synchronously with ``current`` equal to this scheduler, then restores the
    /// previous value, even when calls nest. Subclasses call this around every action they run.
    ///
    /// - Parameter action: the action to run, synchronously, on the calling thread.
    public final func performAsCurrentScheduler(_ action: () -> Void) {
        let previous = CurrentScheduler.slot
        CurrentScheduler.slot = Unmanaged.passUnretained(self).toOpaque()
        defer { CurrentScheduler.slot = previous }
        action()
    }

    static func subclassMustOverride(_ scheduler: Scheduler, _ method: String) -> Never {
        badInput("\(type(of: scheduler)) must override \(method): Scheduler is abstract")
    }
}

// Created on first use (Swift's lazy globals are initialised once, thread-safely). Inlinable
// accessors let callers borrow these immutable globals without a retain/release pair, which
// is most of the cost of `Scheduler.immediate.schedule {}`.
@usableFromInline let immediateScheduler = ImmediateScheduler()
@usableFromInline let mainScheduler = TargetQueueScheduler(name: "org.schedulers.mainThreadScheduler", targetQueue: .main)
@usableFromInline let subscriptionScheduler = SubscriptionScheduler()
