@_spi(SchedulersInternal) import Disposables
import Synchronization

/// Keeps the global-enqueue hook installed while a task started inside a capture may still be
/// resumed, so that its resumption from a Dispatch callback still reaches the hook and stays
/// captured (``CapturedTaskIdentity``), even after the capture's body and every drive ended.
///
/// Why not for the scheduler's whole life: the hook is one variable for the whole process, and
/// another library reads "a hook is set" as its own switch (swift-concurrency-extras'
/// `withMainSerialExecutor` puts its own hook back on exit if it found one at its start), so
/// ours must be gone once nothing can need it. What can need it is a captured task that has
/// not ended, and Swift says when that is: each capture binds one of these as a task-local
/// value (``CapturedTasks/lifetime``), which every task started inside it, and every task those
/// start, copies and holds until it completes. When the capture has returned and the last such
/// task has completed, the last reference goes and `deinit` releases the hook. A scheduler that
/// is deinitialised ends its lifetimes at once (tasks whose jobs it dropped never complete),
/// and so does nothing else: the hook is put back as soon as neither holds it.
///
/// The limit: `Task.detached` copies no task-local value, so a detached task started inside a
/// capture does not hold the hook; while anything else captured lives, it stays captured.
final class CaptureLifetime: Sendable {
    private let tenure: Lock<RuntimeHook.Tenure?>

    /// - Returns: nil where the runtime has no global-enqueue hook.
    init?() {
        guard let tenure = GlobalEnqueueHook.acquire() else { return nil }
        self.tenure = Lock(tenure)
    }

    /// Releases the hook, once.
    func end() {
        if let tenure = tenure.withLock({ $0.take() }) { GlobalEnqueueHook.release(tenure) }
    }

    deinit {
        end()
    }
}

/// The lifetimes a scheduler's captures began, ended by its deinit. Ended ones are dropped as
/// new ones come, so the list stays as long as the captures whose tasks still run.
final class CaptureLifetimes: Sendable {
    private let lifetimes = Lock([CaptureLifetimeReference]())

    /// Begins a lifetime for one capture: bind it as ``CapturedTasks/lifetime`` for the body.
    func begin() -> CaptureLifetime? {
        guard let lifetime = CaptureLifetime() else { return nil }
        lifetimes.withLock { list in
            list.removeAll { $0.lifetime == nil }
            list.append(CaptureLifetimeReference(lifetime: lifetime))
        }
        return lifetime
    }

    /// Ends every lifetime still running (the scheduler's deinit).
    func endAll() {
        let running = lifetimes.withLock { list in
            defer { list.removeAll() }
            return list.compactMap(\.lifetime)
        }
        for lifetime in running { lifetime.end() }
    }
}

private struct CaptureLifetimeReference: Sendable {
    weak var lifetime: CaptureLifetime?
}
