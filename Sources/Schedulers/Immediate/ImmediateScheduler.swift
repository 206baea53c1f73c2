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
/// - ``scheduleRecursive(_:)`` is a loop, so a million self-reschedules use no extra stack.
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
    /// - Parameter action: run at once, then again for each `reschedule` call it makes, in a loop.
    /// - Returns: nil: the chain has finished when this returns.
    @discardableResult
    public override func scheduleRecursive(
        _ action: @escaping @Sendable (_ reschedule: @escaping @Sendable () -> Void) -> Void
    ) -> (any Disposable)? {
        ImmediateRecursion(action: action).start()
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

/// The loop behind ``ImmediateScheduler/scheduleRecursive(_:)``.
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
