@_spi(SchedulersInternal) import Disposables
import Dispatch
import Synchronization

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The main actor's executor for the work a ``TestScheduler`` captures: what
/// ``MainExecutorHook`` answers when the runtime asks for the main actor's executor on behalf of
/// a captured task.
///
/// - **Enqueue.** Each job becomes an action of the scheduler, due at its `now`: FIFO with
///   actions, counted by `pendingCount`, run when the test drives the scheduler. A task that
///   suspends while running here resumes here (the runtime resumes a continuation on the
///   executor it suspended on), so a task started on the main actor inside a capture stays in
///   virtual time to its end, whichever thread resumes it.
/// - **Run.** A job runs on the driving thread, as `Scheduler.current`, with this executor as its
///   current executor, but only if that thread holds the main actor (``MainActorIsolation``):
///   a synchronous `@MainActor` test, or `clock.advance(by:)`, which hops to the main actor for
///   it. Driven from anywhere else, the job would race with the main actor's real work, so it
///   runs on the main queue instead, out of virtual time, and the scheduler says so once
///   (``MainActorWarning``).
/// - **Isolation.** The runtime sees the job's code as isolated to the main actor because, for
///   captured work, this *is* the main actor's executor. Code that checks isolation elsewhere
///   (the test body, a synchronous `MainActor.assumeIsolated`) reaches
///   ``isIsolatingCurrentContext()`` and ``checkIsolated()``, which accept any thread that
///   holds the main actor.
/// - **The driving task** (the caller of an asynchronous `withCapturedTasks`) is never queued
///   in virtual time: when it hops onto the main actor it runs on the main queue at once, with
///   this executor as its executor, so that it hops only once per capture.
///
/// **Lifetime.** The runtime keeps unowned references to this executor in the tasks that ran
/// on it (a task resumes on the executor it suspended on), and such a task may resume long after
/// its test's scheduler is gone: a `Task.sleep` on a real clock, a continuation resumed from a
/// Dispatch callback, a task queued behind a shared actor. Freed with the scheduler, the
/// executor was then called through freed memory (ASan: heap-use-after-free in `enqueue`). So a
/// stand-in is made only when a capture first needs it and is never freed: 32 bytes per
/// scheduler that captured main-actor work, in ``MainActorStandInSlab``'s blocks, and nothing
/// else (no weak reference, whose side table would stay with it, and no entry in a table). Once
/// the scheduler is gone (``detach()``, or ``VirtualTimeCore/isClosed``) it releases each job it
/// is handed without running it: the task never finishes, as with the jobs pending at the
/// scheduler's deinit, and nothing of it runs after the test.
final class MainActorStandIn: SerialExecutor, @unchecked Sendable {
    // `@unchecked`: it has no stored properties; its scheduler's address, in the word after it
    // (``link``), is only read and written under `links`.

    /// Only ``MainActorStandInSlab`` makes stand-ins (``make(for:)``): one made here would have
    /// no ``link`` word after it.
    private init() {}

    /// A new stand-in for `scheduler` (nil: one that releases every job it is handed), made in
    /// a ``MainActorStandInSlab`` block and never freed.
    static func make(for scheduler: TestScheduler?) -> MainActorStandIn {
        let standIn = MainActorStandInSlab.make()
        let address = scheduler.map { Unmanaged.passUnretained($0).toOpaque() }
        links.withLock { _ in standIn.link.pointee = address }
        return standIn
    }

    /// The word after the object, in its slab slot: the scheduler, unretained, or nil once its
    /// deinit began (``detach()``). Not a weak reference: that would keep the scheduler's side
    /// table (32 bytes) alive with this never-freed object.
    private var link: UnsafeMutablePointer<UnsafeMutableRawPointer?> {
        Unmanaged.passUnretained(self).toOpaque().advanced(by: MainActorStandInSlab.objectSize)
            .assumingMemoryBound(to: UnsafeMutableRawPointer?.self)
    }

    /// Guards every stand-in's ``link``: one lock for all, so that a stand-in needs no
    /// allocation of its own (a ``Lock`` per stand-in would be one more, never freed either). It
    /// is held only to read or clear an address and to try to retain the scheduler, never while
    /// a job runs or a scheduler deinitialises, so it is barely contended.
    private static let links = Lock(())

    /// Called first thing in the scheduler's deinit, on the thread that releases it: from now on
    /// the stand-in has no scheduler, and no thread can get the scheduler through it.
    func detach() {
        Self.links.withLock { _ in link.pointee = nil }
    }

    /// The scheduler, retained, or nil once it is gone. Under the lock, the address is that of a
    /// live object (its deinit clears it under the same lock before anything is freed); but its
    /// last strong reference may already be gone, with the deinit about to start or waiting for
    /// the lock, and a plain retain would then hand out an object about to be freed. The
    /// runtime's `swift_tryRetain` fails on an object whose deinit has begun.
    private var scheduler: TestScheduler? {
        Self.links.withLock { _ in
            guard let address = link.pointee, swiftTryRetain(address) != nil else { return nil }
            return Unmanaged<TestScheduler>.fromOpaque(address).takeRetainedValue()
        }
    }

    /// The scheduler, or nil once it is gone (for tests).
    var currentScheduler: TestScheduler? { scheduler }

    /// Whether the link still holds an address (for tests: a deinit that did not ``detach()``
    /// leaves a freed scheduler's address here, which neither AddressSanitizer nor
    /// ``currentScheduler`` notices, as `swift_tryRetain` reads it inside the uninstrumented
    /// runtime and usually finds a deinitialised count there).
    var isAttached: Bool { Self.links.withLock { _ in link.pointee != nil } }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        if CapturedTasks.isBody(CapturedTasks.address(of: job)) {
            // The task driving an asynchronous capture, hopping onto the main actor: it runs now, on the main queue,
            // which holds the main actor, but on this executor, so that its later main-actor
            // calls (and `clock.advance`'s isolated entry) find it already here and do not hop
            // again.
            DispatchQueue.main.async { self.runDeferred(job) }
            return
        }
        // Queued by a job handed to the real main actor as it runs (a `Task.yield()`, whose job
        // is not the task's): there again, never into virtual time.
        if isQueuedByHandedOffWork {
            handOff(job)
            return
        }
        // The scheduler is gone: released without running (see "Lifetime").
        guard let scheduler, !scheduler.core.isClosed else { return }
        let core = scheduler.core
        // A job of a task that left its world (a continuation resumed here, the executor it
        // suspended on): back to the main queue too. Looked up only for a scheduler that has
        // handed work off.
        if core.hasWarned(.drivenOffTheMainActor), CapturedTaskIdentity.hasLeft(job) {
            handOff(job)
            return
        }
        // The task a running yield resumes, or a hop of the running task: on at once.
        let isHop = CurrentScheduler.slot == Unmanaged.passUnretained(scheduler).toOpaque()
            && CapturedJobRun.parkHop(job, onStandIn: true)
        if isHop { return }
        // Known by its identity from now on, so that its nonisolated work stays captured
        // whichever thread resumes it (CapturedTaskIdentity.swift).
        _ = CapturedTaskIdentity.claim(job, for: scheduler)
        // Resumed where nothing captured runs (a Dispatch callback): told if it waited through
        // a drive (OutsideArrivals.swift), by the epoch read as it is queued.
        let arrivesFromOutside = !CapturedTasks.isInside(scheduler)
        let arrivals = scheduler.arrivals
        arrivals.noteQueued(job)
        // The action holds this executor, which does not retain the scheduler: no cycle.
        let isYield = YieldedJob.isYield(job)
        // Its run records the drive epoch it ended in (TestScheduler+Executor.swift).
        let waits = CapturedTaskIdentity.isTask(job) ? Unmanaged.passUnretained(core) : nil
        let action: @Sendable () -> Void = {
            arrivals.run(job) { CapturedJobRun.run(job, isYield: isYield, onStandIn: true) { job in self.run(job) } }
            waits?._withUnsafeGuaranteedRef { $0.taskRan(at: CapturedTasks.address(of: job)) }
        }
        if isYield {
            core.holdYield(action)
        } else if arrivesFromOutside {
            // Judged under the queue's lock, as the job is queued (OutsideArrivals.swift).
            let waited = core.enqueueArrival(action: action, task: CapturedTasks.address(of: job))
            scheduler.noteArrivalFromOutside(.mainActor, waitedThroughADrive: waited)
        } else {
            core.enqueueWithoutDisposable(action: action) { now in now }
        }
    }

    /// Runs `job` here if the driving thread holds the main actor; else hands it to the
    /// asynchronous driver that can hop there, or, failing that, to the real main executor.
    private func run(_ job: UnownedJob) {
        if MainActorIsolation.isHeld {
            runDeferred(job)
        } else if let drive = AsyncDrive.current {
            drive.deferMainActorJob(job, standIn: self)
        } else {
            if let core = scheduler?.core { MainActorWarning.drivenOffTheMainActor(core: core) }
            // Out of virtual time for good. Still the world's by identity, the task would come
            // back whenever some capture (a parallel test's too) held the hooks at its next
            // main-actor check, and wait there for a drive that its test never makes.
            handOff(job)
        }
    }

    /// The thread running a job handed to the real main actor (``runHandedOff(_:)``), while it
    /// runs; 0: none. The main queue runs one block at a time, so one word serves every
    /// stand-in.
    private static let handedOffRunner = Atomic<UInt>(0)

    /// Whether the calling thread is running a job handed to the real main actor: one atomic
    /// load while none runs.
    private var isQueuedByHandedOffWork: Bool {
        let runner = Self.handedOffRunner.load(ordering: .relaxed)
        return runner != 0 && runner == currentThreadIdentity()
    }

    /// Hands `job` to the real main actor, out of virtual time for good. Still the world's by
    /// identity, its task would come back whenever some capture (a parallel test's too) held
    /// the hooks at its next main-actor check, and wait there for a drive that its test never
    /// makes; so it leaves its world (``CapturedTaskIdentity/leave(_:)``). To the main queue,
    /// which holds the main actor while the block runs; not through the runtime, which would
    /// hand a captured task straight back to this executor.
    private func handOff(_ job: UnownedJob) {
        CapturedTaskIdentity.leave(job)
        DispatchQueue.main.async { self.runHandedOff(job) }
    }

    /// Runs a job handed to the real main actor, on the main queue, marking the thread while it
    /// runs: what it queues here goes back to the main queue (``isQueuedByHandedOffWork``).
    private func runHandedOff(_ job: UnownedJob) {
        Self.handedOffRunner.store(currentThreadIdentity(), ordering: .relaxed)
        runDeferred(job)
        Self.handedOffRunner.store(0, ordering: .relaxed)
    }

    /// Runs a job that ``AsyncDrive`` deferred, now that it holds the main actor.
    func runDeferred(_ job: UnownedJob) {
        job.runSynchronously(on: asUnownedSerialExecutor())
    }

    @available(macOS 26.0, iOS 26.0, watchOS 26.0, tvOS 26.0, visionOS 26.0, *)
    func isIsolatingCurrentContext() -> Bool? {
        MainActorIsolation.isHeld
    }

    func checkIsolated() {
        if !MainActorIsolation.isHeld {
            badInput("MainActor.checkIsolated(): a captured main-actor job's code ran on a thread that does not hold the main actor")
        }
    }
}

/// The runtime's `swift_tryRetain`: retains an object and returns it, unless its deinit has
/// begun (then nil, and nothing changes). Its C declaration is
/// `HeapObject *swift_tryRetain(HeapObject *)` (read in the 6.3 runtime's disassembly: it returns
/// its argument on success); declared as returning a `Bool`, a call read the low byte of the
/// pointer, false for a live object whose count it had raised (measured). Looked up, not
/// declared with `@_silgen_name`: the compiler warns that runtime names are reserved. The
/// runtime exports it on every platform (it is part of its ABI); were it absent, the stand-in
/// could not tell a live scheduler from one being freed, so it stops with a message that names it.
private let swiftTryRetain: @convention(c) (UnsafeMutableRawPointer) -> UnsafeMutableRawPointer? = {
    guard let address = RuntimeSymbol.address(of: "swift_tryRetain") else {
        fatalError("MainActorStandIn: the Swift runtime does not export swift_tryRetain")
    }
    return unsafeBitCast(address, to: (@convention(c) (UnsafeMutableRawPointer) -> UnsafeMutableRawPointer?).self)
}()
