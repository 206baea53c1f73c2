import CurrentSchedulerSlot
@_spi(SchedulersInternal) import Disposables
import Foundation
import Synchronization

/// Runs actions synchronously, on the calling thread, before the scheduling call returns
/// (RACImmediateScheduler). Get the shared instance from ``Scheduler/immediate``.
///
/// - It does not change ``Scheduler/current``: an action sees whatever was current at the call.
/// - Its scheduling methods return nil: by the time they return there is nothing left to cancel.
/// - ``schedule(after:_:)-(Date,_)`` blocks the calling thread until `date`.
/// - Repeating is not supported (it would never return): a precondition failure.
/// - ``scheduleRecursive(_:)-6rldz`` is a loop, so a million self-reschedules use no extra stack;
///   where the static type is `ImmediateScheduler`, ``scheduleRecursive(_:)-23afc`` takes a block
///   that need not be `Sendable` (it may change a local variable), as RAC code wrote it.
public final class ImmediateScheduler: Scheduler, @unchecked Sendable {
    public override init(name: String? = nil) {
        super.init(name: name ?? "org.schedulers.ImmediateScheduler.immediateScheduler")
    }

    /// Runs `action` now, on the calling thread. Returns nil.
    ///
    /// - Parameter action: the work to run, here and now.
    @discardableResult
    public override func schedule(_ action: @escaping @Sendable () -> Void) -> (any Disposable)? {
        action()
        return nil
    }

    /// Blocks the calling thread until `date` (not at all for a past or NaN date), then runs
    /// `action` on it. Returns nil. A date in the far future blocks for that long, as in RAC.
    ///
    /// - Parameters:
    ///   - date: when to run it; the call blocks until then.
    ///   - action: the work to run, on the calling thread.
    @discardableResult
    public override func schedule(after date: Date, _ action: @escaping @Sendable () -> Void) -> (any Disposable)? {
        ImmediateScheduler.sleep(until: date)
        action()
        return nil
    }

    /// Not supported: stops with a precondition failure, since the call could never return.
    ///
    /// - Parameters:
    ///   - date: unused.
    ///   - interval: unused.
    ///   - leeway: unused.
    ///   - action: never run.
    /// - Returns: never returns.
    @discardableResult
    public override func schedule(
        after date: Date, repeatingEvery interval: TimeInterval, withLeeway leeway: TimeInterval = 0,
        _ action: @escaping @Sendable () -> Void
    ) -> (any Disposable)? {
        badInput(
            "ImmediateScheduler does not support schedule(after:repeatingEvery:withLeeway:_:) "
                + "(interval \(interval)): a repeating action would never return")
    }

    /// Runs `action` on the calling thread, then once more for each `reschedule` it called, in a
    /// loop. A `reschedule` called after the loop has ended (from another thread, later) runs
    /// the action again at once on that thread. Returns nil.
    ///
    /// Where the static type is `ImmediateScheduler`, a closure written in place goes to the
    /// overload below, whose block need not be `Sendable` (this one is the disfavoured of the
    /// two: a closure fits both, and the compiler could not choose); a `@Sendable` function
    /// value, and every call through a ``Scheduler`` reference, come here.
    ///
    /// - Parameter action: run at once, then again for each `reschedule` call it makes, in a loop.
    /// - Returns: nil: the chain has finished when this returns.
    @_disfavoredOverload
    @discardableResult
    public override func scheduleRecursive(
        _ action: @escaping @Sendable (_ reschedule: @escaping @Sendable () -> Void) -> Void
    ) -> (any Disposable)? {
        ImmediateRecursion(action: action).start()
        return nil
    }

    /// RAC's `-scheduleRecursiveBlock:` as RAC code wrote it: the block need not be `Sendable`, so
    /// it may change a local variable, because it runs only on the calling thread, before this
    /// returns. It runs at once, then once more for each `reschedule` it called, in a loop (no
    /// stack growth, however long the chain). Returns nil: the chain has finished when this
    /// returns, so there is nothing left to dispose.
    ///
    /// ```swift
    /// var n = 0
    /// ImmediateScheduler().scheduleRecursive { again in
    ///     n += 1
    ///     if n < 3 { again() }
    /// }
    /// // n == 3
    /// ```
    ///
    /// `reschedule` is not `Sendable` either: it belongs to the calling thread. Called there after
    /// the loop has ended, it runs the block again at once. To hand `reschedule` to other work,
    /// call the `@Sendable` form (through a ``Scheduler`` reference, as
    /// `Scheduler.immediate.scheduleRecursive`, or with a `@Sendable` function value).
    ///
    /// - Parameter action: run at once, on the calling thread, then again for each `reschedule`
    ///   call it makes, in a loop.
    /// - Returns: nil: the chain has finished when this returns.
    @discardableResult
    public func scheduleRecursive(
        _ action: @escaping (_ reschedule: @escaping () -> Void) -> Void
    ) -> (any Disposable)? {
        // Sound: the loop runs the block on this thread only, and `reschedule`, not Sendable
        // here, cannot reach another thread in checked code.
        nonisolated(unsafe) let action = action
        ImmediateRecursion(action: { reschedule in action(reschedule) }).start()
        return nil
    }

    /// Blocks the calling thread until `delay` has passed on the monotonic clock, then runs
    /// `action` on it. Returns nil.
    ///
    /// - Parameters:
    ///   - delay: how long to block first; zero or negative: not at all.
    ///   - action: the work to run on the calling thread.
    /// - Returns: nil: the action has run.
    @discardableResult
    public override func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> (any Disposable)? {
        let deadline = Double(DispatchTime.now().uptimeNanoseconds) + Double(delay.clampedNanoseconds)
        ImmediateScheduler.block(whileRemaining: { (deadline - Double(DispatchTime.now().uptimeNanoseconds)) / 1e9 })
        action()
        return nil
    }

    /// Not supported: stops with a precondition failure, since the call could never return.
    ///
    /// - Parameters:
    ///   - delay: unused.
    ///   - interval: named in the failure message.
    ///   - leeway: unused.
    ///   - action: never run.
    /// - Returns: never returns.
    @discardableResult
    public override func schedule(
        after delay: Duration, repeatingEvery interval: Duration, leeway: Duration = .zero,
        _ action: @escaping @Sendable () -> Void
    ) -> (any Disposable)? {
        badInput(
            "ImmediateScheduler does not support \(RepeatPreconditions.durationMethod) "
                + "(interval \(interval)): a repeating action would never return")
    }

    /// Blocks until `date` by the wall clock (not at all for a past or NaN date).
    static func sleep(until date: Date) {
        block(whileRemaining: { date.timeIntervalSinceNow })
    }

    /// Blocks while `remainingSeconds()` is positive, sleeping in slices of at most an hour,
    /// because one huge interval (1e300 s, `distantFuture`) would overflow the system call's
    /// `timespec`. The clock is whatever `remainingSeconds` reads.
    private static func block(whileRemaining remainingSeconds: () -> TimeInterval) {
        while true {
            let remaining = remainingSeconds()
            guard remaining > 0 else { return }  // false for NaN too
            Thread.sleep(forTimeInterval: min(remaining, 3600))
        }
    }
}

/// The loop behind both forms of `ImmediateScheduler.scheduleRecursive(_:)`.
///
/// The thread running the loop counts its own synchronous `reschedule` calls in a plain
/// variable. A `reschedule` call recognises that it is made from inside the loop, on the loop's
/// thread, by a thread-local slot (the CurrentSchedulerSlot target's
/// `schedulers_immediate_recursion_slot`) that holds the loop running on this thread: one load
/// and a compare, so `reschedule` is a leaf function of a few instructions. (Comparing thread
/// identities through `pthread_self` cost a call, and with it a stack frame, per iteration.)
/// Calls from any other thread, from inside another immediate loop nested in this one's action,
/// or after the loop has ended, go through a lock; the count of runs is the same either way.
private final class ImmediateRecursion: @unchecked Sendable {
    // `@unchecked`: `synchronous` is touched only by the thread whose slot holds this loop.
    private let action: @Sendable (_ reschedule: @escaping @Sendable () -> Void) -> Void
    private var synchronous = 0
    /// Requests from other threads while the loop runs; `isRunning` false once it has ended.
    private let foreign = Lock((isRunning: true, requests: 0))

    init(action: @escaping @Sendable (_ reschedule: @escaping @Sendable () -> Void) -> Void) {
        self.action = action
    }

    func start() {
        loop(iterations: 1)
    }

    // Out of line: inlined into both callers, its `reschedule` closure was compiled twice and
    // merged, and every call went through one more forwarding thunk.
    @inline(never)
    private func loop(iterations: Int) {
        let reschedule: @Sendable () -> Void = { [self] in request() }
        let me = Unmanaged.passUnretained(self).toOpaque()
        var remaining = iterations
        while true {
            // Set for the inner loop only, and restored before anything else runs: a loop nested
            // in an action (another chain's) sees its own, and this one finds it again after.
            let previous = schedulers_immediate_recursion_slot_get()
            schedulers_immediate_recursion_slot_set(me)
            while remaining > 0 {
                remaining -= 1
                synchronous = 0
                action(reschedule)
                remaining += synchronous
            }
            schedulers_immediate_recursion_slot_set(previous)
            remaining = foreign.withLock { state in
                defer { state.requests = 0 }
                if state.requests == 0 { state.isRunning = false }
                return state.requests
            }
            if remaining == 0 { return }
        }
    }

    @inline(__always)
    private func request() {
        // As words: an optional-pointer comparison compiles to a nil test besides.
        let running = UInt(bitPattern: schedulers_immediate_recursion_slot_get())
        if running == UInt(bitPattern: Unmanaged.passUnretained(self).toOpaque()) {
            synchronous &+= 1
            return
        }
        requestFromElsewhere()
    }

    /// Kept out of line so that the common case above compiles to a handful of instructions
    /// with no registers to save (inline, this path made every `reschedule` cost twice as much).
    @inline(never)
    private func requestFromElsewhere() {
        let startLoop = foreign.withLock { state -> Bool in
            guard state.isRunning else {
                state.isRunning = true
                return true
            }
            state.requests += 1
            return false
        }
        if startLoop { loop(iterations: 1) }
    }
}
