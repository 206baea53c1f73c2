import CurrentSchedulerSlot
@_spi(SchedulersInternal) import Disposables
import Foundation
import Synchronization

/// Work of a captured task that arrives from outside virtual time, and whether the test could
/// have seen a different result.
///
/// A captured task resumed from a thread where nothing captured runs (a Dispatch callback, a
/// completion handler: ``CapturedTasks`` rule 3) is queued on its scheduler at `now`, FIFO, like
/// all its work. But *when* it arrives is real time. It is reported if and only if a drive of
/// the test ran, or virtual time moved, while the task waited for it: then the test may have
/// looked, or time moved on, before it came. A test that lets it arrive before driving again
/// (awaiting it, or waiting in real time on `pendingCount`) is never reported, in any run.
///
/// How that is decided without timing: an **epoch** (`VirtualTimeCore`'s) counts the drives the test
/// begins and every move of virtual time (in a drive, at its end, by an automatic advance).
/// Each run of a task in the world records the epoch it ended in (the task then waits). The
/// arrival reads the epoch under the queue's lock, as it queues its job, and time moves only
/// under that lock, a drive's last move only when nothing is due by its limit
/// (`VirtualTimeCore.finishDrive`): so an arrival a drive runs before time moves reads the
/// epoch the task waited in, and one that comes after the move reads a later one. Equal
/// epochs: nothing to report; different: reported once, naming the task's kind, the virtual
/// time, and the fix.
final class OutsideArrivals: Sendable {
    /// Asynchronous captures of this scheduler whose driver is running (the body has not
    /// returned).
    private let waitingBodies = Atomic<Int>(0)
    /// Jobs of those bodies running now: the body's own code looks, it does not wait.
    private let runningBodyJobs = Atomic<Int>(0)
    /// Jobs of those bodies queued and not yet running: a body about to go on does not wait.
    private let queuedBodyJobs = Atomic<Int>(0)
    /// Drives the test asked for (`advance`, `step`, `clock.advance`, `run()`) in progress.
    private let explicitDrives = Atomic<Int>(0)
    /// Reports waiting for the test's own code (``TestScheduler/emitPendingReport()``): noticed
    /// on another thread, where a report would reach no test, or the wrong one.
    private let deferredReports = Lock<[String]>([])
    private let hasDeferredReport = Atomic<Bool>(false)

    func `defer`(_ message: String) {
        deferredReports.withLock { $0.append(message) }
        hasDeferredReport.store(true, ordering: .releasing)
    }

    @inline(__always)
    func takeDeferred() -> [String] {
        guard hasDeferredReport.load(ordering: .acquiring) else { return [] }
        hasDeferredReport.store(false, ordering: .releasing)
        return deferredReports.withLock { reports in
            defer { reports.removeAll() }
            return reports
        }
    }

    /// The bodies' tasks, by address.
    private let bodies = TaskAddressList()

    /// The task XCTest waits for (SchedulersTestSupport's `VirtualTimeTestCase`): the last task
    /// the test method's synchronous capture started from its own code, before a turn of the run
    /// loop XCTest spins drives the world (``TestScheduler/advanceAutomaticallyOnce(_:)``). It
    /// is then a body, as an asynchronous capture's task is, and its sleeps let time pass as a
    /// body's do. For an `async` method that is the task XCTest runs it in (and one for an
    /// `async` `setUp` or `tearDown`): XCTest starts it and waits for it at once. Addresses;
    /// 0: none. Touched on the capture's thread only (the body's code and the run loop's turns).
    /// Each holds a reference to its task (taken as the task's first job is queued, when it is
    /// surely alive), so that a runaway's or a stuck body's task can be cancelled
    /// (``cancelTestTask()``) even after it ended.
    private let wantsTestTasks = Atomic<Bool>(false)
    private let latestTestTask = Atomic<UInt>(0)
    private let promotedTestTask = Atomic<UInt>(0)

    /// Tasks the capture's body starts are to be noted (``noteStarted(_:)``).
    func wantTestTasks() {
        wantsTestTasks.store(true, ordering: .relaxed)
    }

    /// Notes `job`'s task if the capture's own code queues it (on the capture's thread, in no
    /// task, and not in a drive of the scheduler, `inDrive`): the task XCTest waits for next, if
    /// it waits. One relaxed load otherwise. Never from another thread (a Dispatch callback
    /// resuming a captured task is in no task and no drive either): the notes and their
    /// references are the capture's thread's alone.
    @inline(__always)
    func noteStarted(_ job: UnownedJob, inDrive: Bool, by scheduler: TestScheduler) {
        guard wantsTestTasks.load(ordering: .relaxed), !inDrive, CapturedTaskIdentity.isTask(job),
            CapturedTasks.currentTaskAddress == 0, CapturedTasks.slot == Unmanaged.passUnretained(scheduler).toOpaque()
        else { return }
        let task = CapturedTasks.address(of: job)
        retainTask(task)
        releaseTask(latestTestTask.exchange(task, ordering: .relaxed))
    }

    /// A turn of the run loop drives the world: the task it waits for is the body now, in place
    /// of the one before.
    /// - Returns: whether the body changed.
    @discardableResult
    func promoteTestTask() -> Bool {
        let latest = latestTestTask.load(ordering: .relaxed)
        let promoted = promotedTestTask.load(ordering: .relaxed)
        guard latest != promoted else { return false }
        if promoted != 0 { bodyEnded(promoted) }
        if latest != 0 { bodyBegan(latest) }
        retainTask(latest)
        releaseTask(promotedTestTask.exchange(latest, ordering: .relaxed))
        return true
    }

    /// The test method returned: no task of it is a body any more.
    func endTestTasks() {
        wantsTestTasks.store(false, ordering: .relaxed)
        releaseTask(latestTestTask.exchange(0, ordering: .relaxed))
        let promoted = promotedTestTask.exchange(0, ordering: .relaxed)
        if promoted != 0 { bodyEnded(promoted) }
        releaseTask(promoted)
    }

    /// Whether a task of the test method is the body (see ``promoteTestTask()``).
    var hasTestTask: Bool { promotedTestTask.load(ordering: .relaxed) != 0 }

    /// Cancels the task the test method's run loop treats as the body (a runaway, or a body
    /// that can never go on): its sleeps throw and a stream it iterates ends, so XCTest's wait
    /// for it ends. On the capture's thread.
    func cancelTestTask() {
        let task = promotedTestTask.load(ordering: .relaxed)
        guard task != 0, let pointer = UnsafeRawPointer(bitPattern: task) else { return }
        swiftTaskCancel(pointer)
    }

    /// A task is a heap object: the runtime's own retain keeps it from being freed while its
    /// address is held here.
    private func retainTask(_ task: UInt) {
        guard let pointer = UnsafeRawPointer(bitPattern: task) else { return }
        _ = swiftRetain(pointer)
    }

    private func releaseTask(_ task: UInt) {
        guard let pointer = UnsafeRawPointer(bitPattern: task) else { return }
        swiftRelease(pointer)
    }

    /// Set when a body sleeps (on a real clock or on the scheduler's), cleared when any job of a
    /// body runs again: while it is set, a manually advanced capture moves time on by itself,
    /// to the sleep's deadline at the most (CapturedBodyDriver.swift, "The body's sleeps").
    private let sleepingBody = Atomic<Bool>(false)

    /// How many jobs of the bodies have run: the bodies' progress, which an automatic advance
    /// that runs none for long is told apart by (TestScheduler+Advancing.swift, "runaway").
    private let bodyJobRuns = Atomic<UInt64>(0)

    /// See ``bodyJobRuns``.
    var bodyProgress: UInt64 { bodyJobRuns.load(ordering: .relaxed) }

    /// Whether the running task is the body of one of this scheduler's asynchronous captures.
    var isBodyRunning: Bool {
        let task = CapturedTasks.currentTaskAddress
        return task != 0 && bodies.contains(task)
    }

    /// Whether a body is asleep (see ``sleepingBody``).
    var isBodySleeping: Bool { sleepingBody.load(ordering: .acquiring) }

    /// A body went to sleep: its wake-up is queued.
    func bodySleeps() { sleepingBody.store(true, ordering: .releasing) }

    /// Whether work arriving now is waited for (see the type's doc comment).
    var isWaitedFor: Bool {
        waitingBodies.load(ordering: .acquiring) > 0 && runningBodyJobs.load(ordering: .acquiring) == 0
            && queuedBodyJobs.load(ordering: .acquiring) == 0 && explicitDrives.load(ordering: .acquiring) == 0
    }

    /// Counts a drive the test asked for while `body` runs.
    func explicitDrive<R>(_ body: () throws -> R) rethrows -> R {
        explicitDrives.add(1, ordering: .acquiringAndReleasing)
        defer { explicitDrives.subtract(1, ordering: .acquiringAndReleasing) }
        return try body()
    }

    /// Counts a drive the test asked for while `body` runs (the asynchronous drives).
    func explicitDrive<R>(isolation: isolated (any Actor)? = #isolation, _ body: () async -> R) async -> R {
        explicitDrives.add(1, ordering: .acquiringAndReleasing)
        defer { explicitDrives.subtract(1, ordering: .acquiringAndReleasing) }
        return await body()
    }

    /// The body of an asynchronous capture, `task` its task's address, begins waiting.
    func bodyBegan(_ task: UInt) {
        bodies.add(task)
        waitingBodies.add(1, ordering: .releasing)
    }

    /// That body returned.
    func bodyEnded(_ task: UInt) {
        waitingBodies.subtract(1, ordering: .releasing)
        // A job counted as queued that never ran (dropped, or run after this) counts no more.
        bodies.remove(task) { queuedBodyJobs.store(0, ordering: .releasing) }
    }

    /// Counts `job` as queued if it is one of the bodies' jobs (before it is queued).
    @inline(__always)
    func noteQueued(_ job: UnownedJob) {
        guard isBodyJob(job) else { return }
        queuedBodyJobs.add(1, ordering: .acquiringAndReleasing)
    }

    /// `run`, counted as the body's own code if `job` is one of the bodies' jobs.
    @inline(__always)
    func run(_ job: UnownedJob, _ run: () -> Void) {
        guard isBodyJob(job) else { return run() }
        sleepingBody.store(false, ordering: .releasing)
        bodyJobRuns.add(1, ordering: .relaxed)
        runningBodyJobs.add(1, ordering: .acquiringAndReleasing)
        queuedBodyJobs.subtract(1, ordering: .acquiringAndReleasing)
        defer { runningBodyJobs.subtract(1, ordering: .acquiringAndReleasing) }
        run()
    }


    @inline(__always)
    private func isBodyJob(_ job: UnownedJob) -> Bool {
        bodies.contains(CapturedTasks.address(of: job))
    }
}

extension TestScheduler {
    /// The kinds of captured task, as a report names them.
    enum CapturedTaskKind: String {
        case global = "a captured task"
        case mainActor = "a captured main-actor task"
    }

    /// Reports, once, work of a captured task that arrived from outside virtual time while
    /// nothing waited for it.
    ///
    /// The report waits for the test's own code, so that it is attributed to the test whose
    /// world the task is in, whichever thread or task resumed it (a Dispatch callback, a task of
    /// another test, a detached task): it is given at the next drive the test asks for, when a
    /// capture ends, or when the scheduler is deinitialised, whichever comes first
    /// (``emitPendingReport()``).
    ///
    /// - Parameter waitedThroughADrive: ``OutsideArrivals/waitedThroughADrive(_:)``, read as the
    ///   job was queued.
    func noteArrivalFromOutside(_ kind: CapturedTaskKind, waitedThroughADrive: Bool?) {
        // The answer of a Dispatch block this world submitted: time held until it arrived
        // (WorldDispatchWork.swift), so nothing could have looked too early.
        if let clock = core.worldClockPointer, schedulers_world_clock_get() == clock { return }
        // Reported if and only if a drive ran, or time moved, while the task waited; a task that
        // never ran in this world (none should) by the state of the capture instead.
        let waitedThroughADrive = waitedThroughADrive ?? !arrivals.isWaitedFor
        // A main-actor job that a drive off the main actor sent to the main queue comes back
        // from there: the warning for that drive already named the cause.
        guard waitedThroughADrive, !core.hasWarned(.drivenOffTheMainActor), core.warnOnce(.arrivedFromOutside) else {
            return
        }
        let now = core.now.date.timeIntervalSinceReferenceDate
        let message = """
            \(kind.rawValue) was resumed from outside virtual time after the test drove while it \
            waited; await that work inside `await scheduler.withCapturedTasks { … }` (or let it \
            arrive before driving again), or give the code a stub that completes on the scheduler.
            It came from a Dispatch callback or a completion handler at \(now) s after 2001-01-01 on \
            \(self), after a drive had run or virtual time had moved since the task began to wait, \
            so whether the test saw its work depends on timing. (Once per scheduler.)
            """
        // Given in the test's own code, whoever resumed the task: a task of another test, or a
        // detached one that no test owns, would record it as its own issue, or as none.
        arrivals.defer(message)
    }

    /// Gives the report ``noteArrivalFromOutside(_:)`` deferred, if any: here, in the test's own
    /// code.
    @inline(__always)
    func emitPendingReport() {
        for message in arrivals.takeDeferred() { Warning.emit(message, about: self) }
    }
}

/// The runtime's `swift_task_cancel(AsyncTask *)` (what `Task.cancel()` calls), and its
/// `swift_retain` and `swift_release` (a task is a heap object), for a task known only by its
/// address. Looked up, as the runtime's other entry points here are: every runtime since Swift
/// 5.5 exports them, and a runtime name declared with `@_silgen_name` draws a warning.
private let swiftTaskCancel: @convention(c) (UnsafeRawPointer) -> Void = runtimeFunction("swift_task_cancel")
private let swiftRetain: @convention(c) (UnsafeRawPointer) -> UnsafeRawPointer = runtimeFunction("swift_retain")
private let swiftRelease: @convention(c) (UnsafeRawPointer) -> Void = runtimeFunction("swift_release")

private func runtimeFunction<F>(_ name: String) -> F {
    guard let address = RuntimeSymbol.address(of: name) else {
        fatalError("OutsideArrivals: the Swift runtime does not export \(name)")
    }
    return unsafeBitCast(address, to: F.self)
}
