import Foundation
import Synchronization

extension Scheduler {
    /// Runs actions on the main queue, inline when it can: when ``schedule(_:)`` is called on the
    /// main queue and nothing this scheduler queued earlier is still pending, the action runs at
    /// once, before `schedule` returns; otherwise it is queued like ``main``. Order is preserved
    /// in every case. See ``MainInlineScheduler``.
    public static var mainInline: Scheduler { mainInlineScheduler }
}

// Created on first use (Swift's lazy globals are initialised once, thread-safely).
private let mainInlineScheduler = MainInlineScheduler()

/// The eager main-queue scheduler behind ``Scheduler/mainInline`` (ReactiveSwift's `UIScheduler`,
/// RxSwift's `MainScheduler`), for UI code that must not wait a run-loop turn when it is already
/// on the main queue (RAC issue #1402: a one-frame flicker).
///
/// ``schedule(_:)``:
/// - runs the action inline, on the calling thread, as the current scheduler, returning nil,
///   when called on the main queue while nothing this scheduler queued is still pending, and
///   it is not already inside an action of this scheduler;
/// - otherwise queues it on `DispatchQueue.main`, where it runs as the current scheduler unless
///   the returned disposable is disposed first (then its closure is released at once).
///
/// Order: every action runs after all the actions this scheduler accepted before it. A count of
/// pending actions (queued, or running inline) makes this hold: a call on the main queue goes
/// inline only when the count is zero, so work queued earlier (from a background thread, say)
/// is never overtaken. An action scheduled from inside a running action is therefore queued,
/// not run inline: it runs after the outer action returns, never in the middle of it, and deep
/// chains do not grow the stack. (RxSwift's `MainScheduler` and ReactiveSwift's `UIScheduler`
/// decide the same way.)
///
/// "On the main queue" is asked of Dispatch with a `DispatchSpecificKey` set on
/// `DispatchQueue.main`, not of `Thread.isMainThread`: on Linux, `dispatchMain()` and Swift
/// Testing drain the main queue on other threads (<doc:PlatformNotes>, item 7), and code on the main thread
/// outside any queue counts as the main queue there too.
///
/// Delayed and repeating work behaves like ``Scheduler/main`` (always queued; each run is
/// performed as this scheduler; dates on the wall clock, `Duration`s on the monotonic clock, see
/// ``Scheduler/now``). While it waits it does not count as pending (a call on the main queue
/// meanwhile may still run inline); while it runs it does, like any action of this scheduler, so
/// what it schedules is queued and runs after it returns, never in the middle of it.
/// ``Scheduler/main`` itself stays always-asynchronous, as in RAC.
///
/// ``Scheduler/scheduleRecursive(_:)`` follows from the rule: each reschedule is a `schedule`
/// made after the iteration returned, so a chain started on the main queue with nothing pending
/// and outside any action of this scheduler runs every iteration inline, synchronously, until it
/// stops rescheduling (with a flat stack, like the immediate scheduler). A chain started inside
/// an action of this scheduler (delayed and repeating ones included) is queued, and then runs one
/// iteration per main-queue turn. A chain that must let the main queue breathe between
/// iterations belongs on ``Scheduler/main``.
public final class MainInlineScheduler: Scheduler, @unchecked Sendable {
    // `@unchecked`: the only state is the atomic count.

    /// Set on `DispatchQueue.main`; `DispatchQueue.getSpecific` finds it on the main queue and
    /// on any queue that targets it.
    private static let mainQueueKey: DispatchSpecificKey<Bool> = {
        let key = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: key, value: true)
        return key
    }()

    /// Actions accepted by ``schedule(_:)`` that have not finished: queued (disposed or not) or
    /// running.
    private let pendingCount = Atomic<Int>(0)

    init() {
        _ = MainInlineScheduler.mainQueueKey
        super.init(name: "org.schedulers.mainInlineScheduler")
    }

    /// Whether the caller is running on the main queue (or a queue targeting it).
    static var isOnMainQueue: Bool {
        DispatchQueue.getSpecific(key: mainQueueKey) ?? false
    }

    /// Runs `action` inline (returning nil) when on the main queue with nothing pending here;
    /// otherwise queues it on the main queue behind everything this scheduler queued before.
    ///
    /// - Parameter action: the work to run, on the main queue, as this scheduler.
    /// - Returns: nil when it ran inline; else a disposable that stops it from starting.
    @discardableResult
    public override func schedule(_ action: @escaping @Sendable () -> Void) -> (any Disposable)? {
        if MainInlineScheduler.isOnMainQueue,
            pendingCount.compareExchange(expected: 0, desired: 1, ordering: .acquiringAndReleasing).exchanged
        {
            // The count stays at 1 while the action runs, so anything it schedules here is queued.
            defer { pendingCount.subtract(1, ordering: .releasing) }
            performAsCurrentScheduler(action)
            return nil
        }
        pendingCount.add(1, ordering: .acquiringAndReleasing)
        let scheduled = ScheduledAction(scheduler: self, action: action)
        DispatchQueue.main.async { [self] in
            scheduled.run()
            pendingCount.subtract(1, ordering: .releasing)
        }
        return scheduled
    }

    /// Runs a delayed or repeating action as this scheduler, counted as pending while it runs,
    /// so that what it schedules is queued behind it rather than run in the middle of it.
    private func runCounted(_ action: () -> Void) {
        pendingCount.add(1, ordering: .acquiringAndReleasing)
        defer { pendingCount.subtract(1, ordering: .releasing) }
        performAsCurrentScheduler(action)
    }

    /// Like ``Scheduler/main`` (wall clock, always queued), each run performed as this scheduler.
    ///
    /// - Parameters:
    ///   - date: when to run it, by the wall clock; a past date means as soon as possible.
    ///   - action: the work to run, on the main queue.
    /// - Returns: a disposable that stops the action from starting.
    @discardableResult
    public override func schedule(after date: Date, _ action: @escaping @Sendable () -> Void) -> (any Disposable)? {
        Scheduler.main.schedule(after: date) { [self] in runCounted(action) }
    }

    /// Like ``Scheduler/main``, each tick performed as this scheduler; runs until disposed.
    ///
    /// - Parameters:
    ///   - date: the first run, by the wall clock.
    ///   - interval: seconds between runs.
    ///   - leeway: how many seconds late a run may be.
    ///   - action: the work to run each time, on the main queue.
    /// - Returns: a disposable that stops future runs.
    /// - Precondition: `interval` is finite and greater than zero; `leeway` is zero or more.
    @discardableResult
    public override func schedule(
        after date: Date, repeatingEvery interval: TimeInterval, withLeeway leeway: TimeInterval = 0,
        _ action: @escaping @Sendable () -> Void
    ) -> (any Disposable)? {
        Scheduler.main.schedule(after: date, repeatingEvery: interval, withLeeway: leeway) { [self] in
            runCounted(action)
        }
    }

    /// Like ``Scheduler/main``: on the monotonic clock, always queued, run as this scheduler.
    ///
    /// - Parameters:
    ///   - delay: how long to wait before running `action`.
    ///   - action: the work to run on the main queue.
    /// - Returns: a disposable that stops the action from starting.
    @discardableResult
    public override func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> (any Disposable)? {
        Scheduler.main.schedule(after: delay) { [self] in runCounted(action) }
    }

    /// Like ``Scheduler/main``: on the monotonic clock, each tick run as this scheduler, until
    /// disposed.
    ///
    /// - Parameters:
    ///   - delay: until the first run.
    ///   - interval: between runs; must be greater than zero.
    ///   - leeway: how late a run may be; zero or more.
    ///   - action: the work to run on the main queue at every tick.
    /// - Returns: a disposable that cancels the timer and releases `action`.
    /// - Precondition: `interval > .zero` and `leeway >= .zero`.
    @discardableResult
    public override func schedule(
        after delay: Duration, repeatingEvery interval: Duration, leeway: Duration = .zero,
        _ action: @escaping @Sendable () -> Void
    ) -> (any Disposable)? {
        Scheduler.main.schedule(after: delay, repeatingEvery: interval, leeway: leeway) { [self] in
            runCounted(action)
        }
    }
}
