@_spi(SchedulersInternal) import Disposables
import Synchronization

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The Swift runtime's `swift_task_enqueueGlobal_hook`, behind `TestScheduler.withCapturedTasks`.
///
/// The runtime sends every job bound for the global concurrent executor through this variable
/// when it is set: `hook(job, original)`, where `original` is the runtime's own enqueue. It is
/// an exported C variable, not API: it is looked up with `dlsym` at run time (swift-concurrency-
/// extras' `withMainSerialExecutor` does the same), and a runtime without it makes
/// ``isAvailable`` false.
///
/// Ours is installed once and stays installed: installing and restoring it around each capture
/// would race when tests capture on several threads at once. Its cost for a job nobody captures
/// is two thread-local reads (the capture slot and `Scheduler.current`'s slot) and, when a
/// scheduler is running on the enqueuing thread, one registry lookup.
///
/// Chaining: a job we do not capture goes to the hook that was installed when ours went in
/// (another library's), else to the runtime's original. Another library may install its hook
/// over ours later; every `withCapturedTasks` re-checks and, if ours is no longer the one
/// installed, installs it again with that hook as the one to forward to. Should that hook in
/// turn forward to ours, a thread-local flag set while we forward sends the job straight to the
/// original instead of round in a circle.
enum GlobalEnqueueHook {
    typealias Original = @convention(thin) (UnownedJob) -> Void
    typealias Hook = @convention(thin) (UnownedJob, Original) -> Void

    /// The runtime's variable, or nil where the runtime does not export it.
    nonisolated(unsafe) private static let variable: UnsafeMutablePointer<Hook?>? = {
        guard let symbol = RuntimeSymbol.address(of: "swift_task_enqueueGlobal_hook") else { return nil }
        return symbol.assumingMemoryBound(to: Hook?.self)
    }()

    /// The hook that was installed before ours (its bit pattern; 0 for none). Read on every
    /// forwarded job from any thread, so it is atomic rather than behind the install lock.
    private static let previous = Atomic<UInt>(0)

    /// Serialises installers (several tests may start a capture at once).
    private static let installLock = Lock(())

    private static let hook: Hook = { job, original in
        if let scheduler = CapturedTasks.capturingScheduler() {
            scheduler._withUnsafeGuaranteedRef { $0.enqueueCaptured(job) }
        } else {
            GlobalEnqueueHook.forward(job, original)
        }
    }

    /// Whether this runtime exports the hook.
    static var isAvailable: Bool { variable != nil }

    /// Makes sure ours is the installed hook.
    /// - Returns: false where the runtime has no such hook.
    static func install() -> Bool {
        guard let variable else { return false }
        installLock.withLock { _ in
            let installed = bits(variable.pointee)
            if installed != bits(hook) {
                previous.store(installed, ordering: .releasing)
                variable.pointee = hook
            }
        }
        return true
    }

    /// Hands a job we do not capture to the previous hook, or to the runtime.
    private static func forward(_ job: UnownedJob, _ original: Original) {
        let previousBits = previous.load(ordering: .acquiring)
        guard previousBits != 0, !ForwardingFlag.isSet else {
            original(job)
            return
        }
        let previousHook = unsafeBitCast(previousBits, to: Hook.self)
        ForwardingFlag.isSet = true
        previousHook(job, original)
        ForwardingFlag.isSet = false
    }

    private static func bits(_ hook: Hook?) -> UInt {
        unsafeBitCast(hook, to: UInt.self)
    }
}

/// Set on a thread while ``GlobalEnqueueHook`` calls the previous hook, so that a previous hook
/// which forwards back to ours does not loop.
private enum ForwardingFlag {
    static let key: pthread_key_t = {
        var key = pthread_key_t()
        let status = pthread_key_create(&key, nil)
        precondition(status == 0, "withCapturedTasks: pthread_key_create failed with \(status)")
        return key
    }()

    static var isSet: Bool {
        get { pthread_getspecific(key) != nil }
        set { pthread_setspecific(key, newValue ? UnsafeRawPointer(bitPattern: 1) : nil) }
    }
}
