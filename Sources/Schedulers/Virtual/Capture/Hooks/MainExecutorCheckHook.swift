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

    /// The second word of every stand-in's `UnownedSerialExecutor`: the witness table of
    /// `MainActorStandIn: SerialExecutor` and the executor's kind, the same for all of them. So
    /// an executor is a stand-in when its second word is this one, with no table of stand-ins:
    /// such a table would grow by an entry for every scheduler that ever captured main-actor
    /// work, since stand-ins are never freed (measured: about 21 bytes of resident memory per
    /// scheduler, in a hash table that never shrinks).
    private static let standInImplementation = unsafeBitCast(
        MainActorStandIn.make(for: nil).asUnownedSerialExecutor(), to: (UInt, UInt).self).1

    private static let hook: Hook = { executor, original in
        // An executor is two words: its identity, then its witness table and kind.
        if unsafeBitCast(executor, to: (UInt, UInt).self).1 == standInImplementation { return true }
        return MainExecutorCheckHook.runtimeHook.forward(
            to: { unsafeBitCast($0, to: Hook.self)(executor, original) },
            else: { original(executor) })
    }

    static let runtimeHook = RuntimeHook(
        variable: TestSupportLink.parts?.isMainExecutorHook.address, hook: unsafeBitCast(hook, to: UInt.self))
}
