import CoreFoundation
import Foundation
import Synchronization

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// One ``RunLoopBlocker/wait(timeout:_:)``: the thread that waits runs its run loop until
/// another party calls ``signal()``.
///
/// How the run loop is woken (RxBlocking's `RunLoopLock`): `signal()` marks the waiter done, then
/// asks the waiting thread's run loop to perform a block that calls `CFRunLoopStop`, and wakes it.
/// `CFRunLoopStop` stops the *innermost* `CFRunLoopRunInMode` running on that thread, which is
/// ours only if no nested wait is running. So the block stops the run loop only when this waiter
/// is the innermost active one on the thread; otherwise the nested wait, when it returns, sees
/// that the waiter around it is done and stops the run loop for it.
///
/// Known limit: if work run by a wait runs the run loop by other means (`RunLoop.run(until:)`),
/// a stop request performed in that invocation stops it instead of ours, and ours sleeps until
/// its run loop next wakes (at worst its timeout; it then returns normally, as `done` was
/// called). Tracking every invocation with a `CFRunLoopObserver` would fix it; not worth it yet.
///
/// Why a timer is parked on the run loop: `CFRunLoopRunInMode` returns at once when the mode has
/// no sources or timers (always so on a plain thread, and on the main thread inside a
/// main-queue block), which would make the wait loop a busy spin (Platform notes, item 9). A repeating
/// timer that does nothing keeps the mode non-empty, so the thread sleeps in the kernel.
final class RunLoopWaiter: @unchecked Sendable {
    // `@unchecked`: `runLoop` and `thread` are immutable, and `CFRunLoopPerformBlock`,
    // `CFRunLoopWakeUp` and `CFRunLoopStop` are thread-safe; `isDone` is atomic; `isRunning` and
    // `enclosing` are only touched on the waiting thread (in `run` and in blocks its run loop
    // performs).
    private let runLoop: CFRunLoop = CFRunLoopGetCurrent()
    private let thread = pthread_self()
    private let isDone = Atomic<Bool>(false)
    private var isRunning = false
    private var enclosing: RunLoopWaiter?

    /// A timer period the run loop honours (it ignores absurdly long ones, Platform notes, item 9).
    private static let keepAlivePeriod: TimeInterval = 3600

    /// Marks the wait done and wakes the waiting thread. Any thread; idempotent.
    func signal() {
        guard !isDone.exchange(true, ordering: .acquiringAndReleasing) else { return }
        if pthread_equal(pthread_self(), thread) != 0 {
            // On the waiting thread itself (inside `body`, or in work its run loop runs).
            stopIfInnermost()
            return
        }
        CFRunLoopPerformBlock(runLoop, RunLoopWaiter.defaultModeObject) { self.stopIfInnermost() }
        CFRunLoopWakeUp(runLoop)
    }

    /// Runs the current run loop until ``signal()`` or the timeout. Returns whether it was
    /// signalled. Call once, on the thread that created the waiter.
    func run(timeout: TimeInterval) -> Bool {
        if isDone.load(ordering: .acquiring) { return true }
        let start = DispatchTime.now().uptimeNanoseconds
        guard timeout > 0 else { return finishTimedOut() }

        enclosing = RunLoopWaiter.innermost
        RunLoopWaiter.innermost = self
        isRunning = true
        let keepAlive = Timer(timeInterval: RunLoopWaiter.keepAlivePeriod, repeats: true) { _ in }
        RunLoop.current.add(keepAlive, forMode: .default)
        defer {
            keepAlive.invalidate()
            isRunning = false
            RunLoopWaiter.innermost = enclosing
            // If the wait around this one was signalled while this one ran, its stop request
            // found this one innermost and did nothing: stop the run loop for it now.
            if let enclosing, enclosing.isDone.load(ordering: .acquiring) {
                CFRunLoopStop(runLoop)
            }
            enclosing = nil
        }

        while !isDone.load(ordering: .acquiring) {
            let elapsed = TimeInterval(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            let remaining = timeout - elapsed
            guard remaining > 0 else { return finishTimedOut() }
            // Returns when stopped (by us, or by anyone: then we loop), or at the timeout.
            _ = CFRunLoopRunInMode(RunLoopWaiter.defaultMode, remaining, false)
        }
        return true
    }

    /// Ends a wait whose timeout passed: marks it done, so that a `signal()` arriving later does
    /// nothing. Otherwise that signal would queue a block on this thread's run loop, which may
    /// never run again (a pool thread, say), and the block would keep this waiter, and whatever
    /// its caller's `done` closure holds, in memory for good. Returns whether a signal came first
    /// after all (at the very last moment), which counts as done.
    private func finishTimedOut() -> Bool {
        isDone.exchange(true, ordering: .acquiringAndReleasing)
    }

    /// Stops the run loop if this wait is the innermost one running on this thread.
    /// Waiting thread only.
    private func stopIfInnermost() {
        guard isRunning, RunLoopWaiter.innermost === self else { return }
        CFRunLoopStop(runLoop)
    }

    // MARK: The innermost wait of each thread

    private static let innermostKey: pthread_key_t = {
        var key = pthread_key_t()
        let status = pthread_key_create(&key, nil)
        precondition(status == 0, "RunLoopBlocker.wait: pthread_key_create failed with \(status)")
        return key
    }()

    /// The innermost wait running on this thread. Unretained: each `run` sets it to itself and
    /// restores the previous value before returning, so the waiter outlives the pointer.
    private static var innermost: RunLoopWaiter? {
        get {
            guard let slot = pthread_getspecific(innermostKey) else { return nil }
            return Unmanaged<RunLoopWaiter>.fromOpaque(slot).takeUnretainedValue()
        }
        set {
            pthread_setspecific(innermostKey, newValue.map { Unmanaged.passUnretained($0).toOpaque() })
        }
    }

    // MARK: The default mode, spelled per platform

    #if canImport(Darwin)
    private static var defaultMode: CFRunLoopMode { CFRunLoopMode.defaultMode }
    private static var defaultModeObject: CFTypeRef { CFRunLoopMode.defaultMode.rawValue }
    #else
    private static var defaultMode: CFString { kCFRunLoopDefaultMode }
    private static var defaultModeObject: CFString { kCFRunLoopDefaultMode }
    #endif
}
