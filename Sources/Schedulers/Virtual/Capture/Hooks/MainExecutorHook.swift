@_spi(SchedulersInternal) import Disposables
import Synchronization

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The Swift runtime's `swift_task_getMainExecutor_hook`, behind the main actor's part of
/// `TestScheduler.withCapturedTasks`.
///
/// Why this hook, of the runtime's ten: main-actor work is not enqueued through a hook of its
/// own on this runtime (`swift_task_enqueueMainExecutor_hook` exists but a `Task {}` started on
/// the main actor never passes through it, Platform notes, item 22), and the main queue cannot
/// be drained from where Swift Testing runs `@MainActor` tests on Linux (a worker thread, where
/// `_dispatch_main_queue_callback_4CF` crashes, item 21). But every time the runtime needs the
/// main actor's executor (to start a task isolated to it, to hop onto it, to check isolation) it
/// asks `swift_task_getMainExecutor`, which consults this hook (item 25). Answering, for the
/// tasks a test captures only, with the scheduler's ``MainActorStandIn`` sends their main-actor
/// jobs into virtual time on every platform and under every test runner, with no run loop and
/// no guessing. The same mechanism works on Apple platforms (the runtime code is shared); it
/// needs a runtime that has the hook (the Swift 6.1 runtime and later: macOS 15.4, iOS 18.4 and
/// their x.4 siblings, every OS 26 release; Platform notes, "The main-executor hook's
/// first release").
///
/// Answering only for captured work matters: a hook that answered for every thread sent the
/// test runner's own main-actor work to a finished test's scheduler (item 26).
///
/// Like ``GlobalEnqueueHook``, it is looked up by the test support, installed only while a capture or a
/// drive needs it, and forwards every lookup it does not answer to the hook it displaced, else
/// to the runtime (``RuntimeHook``).
enum MainExecutorHook {
    typealias Original = @convention(thin) () -> UnownedSerialExecutor
    typealias Hook = @convention(thin) (Original) -> UnownedSerialExecutor

    private static let hook: Hook = { original in
        if let scheduler = CapturedTasks.world() {
            return scheduler.mainActorStandIn.asUnownedSerialExecutor()
        }
        return MainExecutorHook.runtimeHook.forward(
            to: { unsafeBitCast($0, to: Hook.self)(original) },
            else: { original() })
    }

    /// Installed only while needed and put back after, like ``GlobalEnqueueHook`` (RuntimeHook.swift).
    static let runtimeHook = RuntimeHook(
        variable: TestSupportLink.parts?.getMainExecutorHook.address, hook: unsafeBitCast(hook, to: UInt.self))

    /// Whether this runtime exports the hook.
    static var isAvailable: Bool { runtimeHook.isAvailable }
}

/// The hooks a capture holds: the global-enqueue hook (required), and the main-executor lookup
/// hook with its companion check (where the runtime has them: the Swift 6.1 runtime and later).
enum CaptureHooks {
    struct Tenures: Sendable {
        let global: RuntimeHook.Tenure
        let main: RuntimeHook.Tenure?
        /// ``MainExecutorCheckHook``, taken with the lookup hook.
        let mainCheck: RuntimeHook.Tenure?

        func release() {
            if let mainCheck { MainExecutorCheckHook.runtimeHook.release(mainCheck) }
            if let main { MainExecutorHook.runtimeHook.release(main) }
            GlobalEnqueueHook.release(global)
        }
    }

    /// Installs them until ``Tenures/release()``. - Returns: nil without the global-enqueue hook.
    static func acquire() -> Tenures? {
        guard let global = GlobalEnqueueHook.acquire() else { return nil }
        let main = MainExecutorHook.runtimeHook.acquire()
        return Tenures(global: global, main: main, mainCheck: main == nil ? nil : MainExecutorCheckHook.runtimeHook.acquire())
    }
}
