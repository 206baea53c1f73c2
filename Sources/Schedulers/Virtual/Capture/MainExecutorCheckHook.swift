@_spi(SchedulersInternal) import Disposables

/// The Swift runtime's `swift_task_isMainExecutor_hook`, so that a ``MainActorStandIn`` counts
/// as the main actor's executor when the runtime compares executors.
///
/// Why: `Task.immediate` starts its task synchronously only if the caller is already on the
/// task's executor (`swift_task_isCurrentExecutor`). Inside a synchronous capture on the main
/// actor, a `@MainActor` operation's executor is the stand-in (``MainExecutorHook`` answers the
/// lookup), while the caller runs on the runtime's main executor (a `@MainActor` test's job).
/// The runtime treats two main executors as the same context, but without this hook the
/// stand-in is not one: the check failed, and the task was queued instead of started
/// (measured: 1,400 of 1,400 in a Swift Testing `@MainActor` test). The stand-in only ever
/// runs a job on a thread that holds the main actor, so for isolation it is the main actor.
///
/// Installed with the other capture hooks (``CaptureHooks``), forwarding every other executor.
enum MainExecutorCheckHook {
    typealias Original = @convention(thin) (UnownedSerialExecutor) -> Bool
    typealias Hook = @convention(thin) (UnownedSerialExecutor, Original) -> Bool

    /// The stand-ins' addresses: they are never freed (MainActorStandIn.swift, "Lifetime").
    private static let standIns = Lock(Set<UInt>())

    /// Records a stand-in, once, when it is made.
    static func register(_ standIn: MainActorStandIn) {
        let address = UInt(bitPattern: Unmanaged.passUnretained(standIn).toOpaque())
        standIns.withLock { _ = $0.insert(address) }
    }

    private static let hook: Hook = { executor, original in
        // The executor's identity is the first of its two words.
        let identity = unsafeBitCast(executor, to: (UInt, UInt).self).0
        if standIns.withLock({ $0.contains(identity) }) { return true }
        return MainExecutorCheckHook.runtimeHook.forward(
            to: { unsafeBitCast($0, to: Hook.self)(executor, original) },
            else: { original(executor) })
    }

    static let runtimeHook = RuntimeHook(
        symbol: "swift_task_isMainExecutor_hook", hook: unsafeBitCast(hook, to: UInt.self))
}
