import Foundation

/// Decides when and where work runs: RACScheduler.
///
/// `Scheduler` is abstract. Its concrete subclasses are ``ImmediateScheduler`` (inline),
/// ``QueueScheduler`` and ``TargetQueueScheduler`` (a serial GCD queue), ``SubscriptionScheduler``
/// (inline inside another scheduler, else in the background) and ``TestScheduler`` (virtual time).
///
/// Every scheduler in this package is serial: actions scheduled on one never run concurrently
/// with each other (a ``QueueScheduler`` over a concurrent queue you supply is the exception).
/// A scheduling method returns a ``Disposable``, or nil when the work cannot be cancelled
/// (it has already run). Disposing it before the action starts guarantees the action never
/// starts; disposing it once the action is running does not interrupt it.
///
/// Subclasses override ``schedule(_:)``, ``schedule(after:_:)`` and
/// ``schedule(after:repeatingEvery:withLeeway:_:)``, and run each action inside
/// ``performAsCurrentScheduler(_:)`` so that ``current`` is right while it runs.
open class Scheduler: @unchecked Sendable, CustomStringConvertible {
    // `@unchecked`: the only stored property is an immutable String; subclasses that add
    // mutable state guard it themselves (every one in this package keeps it in a `Lock`, a TSan-visible Mutex).

    /// How urgent work on a ``TargetQueueScheduler`` created with ``TargetQueueScheduler/init(priority:name:)``
    /// is, as a GCD quality of service: `high` = userInitiated, `default` = default,
    /// `low` = utility, `background` = background.
    public enum Priority: Sendable {
        case high, `default`, low, background
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
    /// - Returns: a disposable that stops the action from starting, or nil if it cannot be cancelled.
    @discardableResult
    open func schedule(_ action: @escaping @Sendable () -> Void) -> (any Disposable)? {
        Scheduler.subclassMustOverride(self, "schedule(_:)")
    }

    /// Schedules `action` to run at or after `date`.
    ///
    /// - Returns: a disposable that stops the action from starting, or nil if it cannot be cancelled.
    @discardableResult
    open func schedule(after date: Date, _ action: @escaping @Sendable () -> Void) -> (any Disposable)? {
        Scheduler.subclassMustOverride(self, "schedule(after:_:)")
    }

    /// Schedules `action` to run `delay` seconds from now. Unless a subclass overrides it, this is
    /// `schedule(after: Date(timeIntervalSinceNow: delay), action)`.
    @discardableResult
    open func schedule(afterDelay delay: TimeInterval, _ action: @escaping @Sendable () -> Void) -> (any Disposable)? {
        schedule(after: Date(timeIntervalSinceNow: delay), action)
    }

    /// Schedules `action` to run first at `date`, then every `interval` seconds until disposed.
    ///
    /// - Parameters:
    ///   - interval: seconds between runs; must be finite and greater than zero.
    ///   - leeway: how many seconds late a run may be, letting the system coalesce wake-ups;
    ///     must be zero or more (not NaN).
    /// - Returns: a disposable that stops future runs. A run already in progress completes.
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
    ///   cancelled and releases the action before `dispose()` returns.
    ///
    /// Each run happens wherever ``schedule(_:)`` puts it. Memory stays constant however long the
    /// chain runs.
    @discardableResult
    open func scheduleRecursive(
        _ action: @escaping @Sendable (_ reschedule: @escaping @Sendable () -> Void) -> Void
    ) -> (any Disposable)? {
        RecursiveChain.start(on: self, action)
    }

    // MARK: Monotonic time (internal hooks)

    // The `Duration` overloads (Scheduler+Duration.swift) are extension methods, which Swift
    // does not let subclasses override, so each forwards to one of these hooks after checking its
    // arguments. The schedulers of this module override them in their class bodies; a subclass
    // from outside the module cannot, and gets these defaults, which go through its own
    // Date-based methods so that its overrides see every action.

    /// Runs `action` after `delay`. Default: `schedule(afterDelay:)`, i.e. this scheduler's own
    /// notion of time (the wall clock, for a subclass that does not say otherwise).
    func scheduleMonotonic(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> (any Disposable)? {
        schedule(afterDelay: delay.timeInterval, action)
    }

    /// Runs `action` after `delay`, then every `interval`. The arguments are already checked.
    /// Default: the Date-based repeating method, starting `delay` from now.
    func scheduleMonotonic(
        after delay: Duration, repeatingEvery interval: Duration, leeway: Duration,
        _ action: @escaping @Sendable () -> Void
    ) -> (any Disposable)? {
        schedule(
            after: Date(timeIntervalSinceNow: delay.timeInterval), repeatingEvery: interval.timeInterval,
            withLeeway: leeway.timeInterval, action)
    }

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
