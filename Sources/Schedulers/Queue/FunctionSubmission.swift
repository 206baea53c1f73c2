import Dispatch
#if canImport(CDispatch) && !SCHEDULERS_PORTABLE
internal import CDispatch
#endif

/// Submits an object to a queue as a C function and a context pointer (`dispatch_async_f`,
/// `dispatch_after_f`), rather than as a block.
///
/// Why: `DispatchQueue.async` takes a block, and a Swift closure becomes a block through
/// `_Block_copy`: a `malloc` and `free` per call. A `schedule` must allocate a ``ScheduledAction``
/// anyway, as the disposable it returns; handing Dispatch that object as the context leaves it
/// the only allocation of ours per `schedule`, as the block is raw `async`'s only one (Dispatch
/// adds a continuation to both), and skips the block's invoke thunks (with
/// the thread-local `Scheduler.current`, ours went from ~1.3-1.6x raw `async`'s instructions per
/// action to ~1.0x: Benchmarks/Results/callgrind.md, the section on the block per action). A queue's recursion chain
/// posts its driver the same way, with no allocation per iteration at all.
///
/// The Swift `Dispatch` overlay on Linux wraps the C queue in a class and does not expose it, so
/// the C queue is read from the wrapper's stored property (`__wrapped`, the only one). Its place
/// is checked once per process against what `Mirror` reports for a probe queue (`Mirror` itself
/// costs ~3.4 µs per queue, ten times creating one); if the overlay ever changes shape, the check
/// fails and every queue falls back to `async`, which is correct, just slower
/// (`FunctionSubmissionTests` fails in that case, so CI notices). Elsewhere (Darwin, where
/// `DispatchQueue` is the C queue but whose overlay this package cannot build here) it is `async`.
///
/// Built with `SCHEDULERS_PORTABLE` defined (`SCHEDULERS_PORTABLE=1` in the environment of
/// `swift build`, read by Package.swift, or `-Xswiftc -DSCHEDULERS_PORTABLE`), Linux takes the
/// `async` fallback too, the path Apple platforms run: `.ci/run` runs the whole suite that way as
/// well, so the fallback is tested here and not only on a Mac.
struct FunctionSubmission: @unchecked Sendable {
    // `@unchecked`: an immutable pointer to a C queue, which is thread-safe; the
    // `DispatchQueue` that owns it is kept alive by the scheduler holding this value.
    #if canImport(CDispatch) && !SCHEDULERS_PORTABLE
    private let cQueue: OpaquePointer?
    #endif

    init(_ queue: DispatchQueue) {
        #if canImport(CDispatch) && !SCHEDULERS_PORTABLE
        cQueue = FunctionSubmission.wrappedQueueOffset.map { offset in
            withExtendedLifetime(queue) {
                UnsafeRawPointer(Unmanaged.passUnretained(queue).toOpaque()).load(fromByteOffset: offset, as: OpaquePointer.self)
            }
        }
        #endif
    }

    /// Whether submissions skip the block (false where only `async` is available).
    var isDirect: Bool {
        #if canImport(CDispatch) && !SCHEDULERS_PORTABLE
        cQueue != nil
        #else
        false
        #endif
    }

    /// Queues `work.run()` on `queue`, which must be the queue this value was made from;
    /// Dispatch holds a reference to `work` until it has run. (The timed forms below hold none
    /// for a deadline of "never": that work never runs and is never queued, on either path.)
    @inline(__always)
    func async<Work: SubmittedWork>(_ work: Work, on queue: DispatchQueue) {
        #if canImport(CDispatch) && !SCHEDULERS_PORTABLE
        if let cQueue {
            dispatch_async_f(cQueue, Unmanaged.passRetained(work).toOpaque(), Work.runSubmitted)
            return
        }
        #endif
        queue.async { work.run() }
    }

    /// Queues `work.run()` on `queue` at `deadline` (the monotonic clock), as
    /// `queue.asyncAfter(deadline:)` would.
    @inline(__always)
    func asyncAfter<Work: SubmittedWork>(_ work: Work, deadline: DispatchTime, on queue: DispatchQueue) {
        // Work due "never" is never submitted, on either path. Dispatch drops work due at
        // DISPATCH_TIME_FOREVER without ever calling it, so the direct path would never get its
        // reference back; and Apple documents `asyncAfter` with `distantFuture` as undefined
        // (Platform notes, "Platform branches"), which the `async` path would otherwise do.
        if deadline.rawValue == DispatchTime.distantFuture.rawValue { return }
        #if canImport(CDispatch) && !SCHEDULERS_PORTABLE
        if let cQueue {
            dispatch_after_f(deadline.rawValue, cQueue, Unmanaged.passRetained(work).toOpaque(), Work.runSubmitted)
            return
        }
        #endif
        queue.asyncAfter(deadline: deadline) { work.run() }
    }

    /// Queues `work.run()` on `queue` at `deadline` (the wall clock), as
    /// `queue.asyncAfter(wallDeadline:)` would.
    @inline(__always)
    func asyncAfter<Work: SubmittedWork>(_ work: Work, wallDeadline: DispatchWallTime, on queue: DispatchQueue) {
        if wallDeadline.rawValue == DispatchWallTime.distantFuture.rawValue { return }  // as above
        #if canImport(CDispatch) && !SCHEDULERS_PORTABLE
        if let cQueue {
            dispatch_after_f(wallDeadline.rawValue, cQueue, Unmanaged.passRetained(work).toOpaque(), Work.runSubmitted)
            return
        }
        #endif
        queue.asyncAfter(wallDeadline: wallDeadline) { work.run() }
    }

    #if canImport(CDispatch) && !SCHEDULERS_PORTABLE
    /// Where a `DispatchQueue` keeps its C queue, if this overlay keeps it where `Mirror` says.
    private static let wrappedQueueOffset: Int? = {
        let probe = DispatchQueue(label: "org.schedulers.layout-probe")
        let reported = Mirror(reflecting: probe).children.lazy
            .filter { $0.label == "__wrapped" }.compactMap { $0.value as? OpaquePointer }.first
        guard let reported else { return nil }
        // A Swift object starts with its metadata pointer and reference counts; the first stored
        // property of a class whose superclass has none follows them.
        let offset = 2 * MemoryLayout<UnsafeRawPointer>.size
        let found = withExtendedLifetime(probe) {
            UnsafeRawPointer(Unmanaged.passUnretained(probe).toOpaque()).load(fromByteOffset: offset, as: OpaquePointer.self)
        }
        return found == reported ? offset : nil
    }()
    #endif
}

/// Something ``FunctionSubmission`` can queue: an object, and a C function that runs it.
protocol SubmittedWork: AnyObject, Sendable {
    /// The work, on the queue.
    func run()

    /// Called by Dispatch with the context ``FunctionSubmission/async(_:on:)`` passed: takes
    /// back the reference Dispatch held and calls ``run()``. A C function pointer cannot be
    /// generic, so each type spells out its own.
    static var runSubmitted: @convention(c) (UnsafeMutableRawPointer?) -> Void { get }
}

extension ScheduledAction: SubmittedWork {
    static let runSubmitted: @convention(c) (UnsafeMutableRawPointer?) -> Void = { context in
        Unmanaged<ScheduledAction>.fromOpaque(context!).takeRetainedValue().run()
    }
}
