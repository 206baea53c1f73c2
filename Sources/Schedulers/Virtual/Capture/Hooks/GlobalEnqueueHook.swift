/// The Swift runtime's `swift_task_enqueueGlobal_hook`, behind `TestScheduler.withCapturedTasks`.
///
/// The runtime sends every job bound for the global concurrent executor through this variable
/// when it is set: `hook(job, original)`, where `original` is the runtime's own enqueue. It is
/// an exported C variable, not API: the test support looks it up with `dlsym` at run time
/// (swift-concurrency-extras' `withMainSerialExecutor` does the same) and lends its address
/// (``TestSupportLink``); a runtime without it, or a binary without the test support, makes
/// ``isAvailable`` false.
///
/// Ours is installed only while it is needed: while a `withCapturedTasks` body runs, and while a
/// scheduler that has captured is being driven (so the jobs its captured tasks enqueue then are
/// still captured). ``RuntimeHook`` does the installing, the putting back and the forwarding:
/// a job we do not capture goes to the hook ours displaced (another library's), else to the
/// runtime's original. Its cost for a job nobody captures is two thread-local reads (the
/// capture slot and `Scheduler.current`'s slot) and, for a task's job, a lookup of the task
/// (CapturedTasks.swift); none at all while no capture is running.
enum GlobalEnqueueHook {
    typealias Original = @convention(thin) (UnownedJob) -> Void
    typealias Hook = @convention(thin) (UnownedJob, Original) -> Void

    private static let hook: Hook = { job, original in
        // The running task hopping again, its scheduler known in this run: on at once.
        if CapturedJobRun.parkKnownHop(job) { return }
        if let resolution = CapturedTasks.capturingScheduler(for: job) {
            // Strong for the call: enqueueCaptured touches the scheduler after queuing the job.
            resolution.scheduler.enqueueCaptured(job, fromOutside: resolution.isFromOutside)
        } else {
            GlobalEnqueueHook.runtimeHook.forward(
                to: { unsafeBitCast($0, to: Hook.self)(job, original) },
                else: { original(job) })
        }
    }

    static let runtimeHook = RuntimeHook(
        variable: TestSupportLink.parts?.enqueueGlobalHook.address, hook: unsafeBitCast(hook, to: UInt.self))

    /// Whether this runtime exports the hook.
    static var isAvailable: Bool { runtimeHook.isAvailable }

    /// Installs ours until the matching ``release(_:)``.
    /// - Returns: nil where the runtime has no such hook.
    static func acquire() -> RuntimeHook.Tenure? {
        runtimeHook.acquire()
    }

    static func release(_ tenure: RuntimeHook.Tenure) {
        runtimeHook.release(tenure)
    }
}
