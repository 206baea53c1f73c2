import CurrentSchedulerSlot
import Dispatch
@_spi(SchedulersInternal) import Disposables
import Synchronization

/// The Dispatch work a virtual world has started: blocks in flight, which hold virtual time,
/// and `asyncAfter` deadlines, which wait for it.
///
/// Why: the commonest border of a world is a completion handler on a Dispatch queue (a stub
/// client's `DispatchQueue.global().async { completion(answer) }`). Its answer arrives after
/// real time that the world knows nothing of, so a drive that moved virtual time meanwhile gave
/// the test a result that depended on which thread ran first. A test binary that links
/// SchedulersTestSupport defines `dispatch_async` and its siblings (Sources/VirtualReadings): a
/// block submitted from a thread running the world's work (any queue but the main queue) runs
/// with the world's clock readings, is counted in flight in the world clock while it is on its
/// way, and what it submits in turn is the world's too. While any is in flight, virtual time
/// holds, as Tokio's paused clock holds for `spawn_blocking` work: every drive waits for the
/// blocks before moving time past `now`, and before it returns, so the answer they bring is
/// queued at the virtual time it was asked for and runs in that same drive (``TestScheduler``'s
/// `runNext`). An `asyncAfter` deadline is turned into an action of the scheduler at its virtual
/// time, which submits the block for real, counted in flight (``schedule(at:fire:context:)``).
///
/// A block that does not finish within ``TestScheduler/waitWarningDelay`` of real time (one that
/// waits for the world it holds, or for the network) is reported once, and time no longer
/// holds for it.
///
/// Schedulers itself submits nothing through those definitions: a binary without them never
/// counts a block, and every drive sees nothing in flight.
final class WorldDispatchWork: Sendable {
    private let reference: SchedulerReference
    /// Threads blocked in a synchronous drive until the blocks in flight finish.
    private let blockedDrives = Lock<[DispatchSemaphore]>([])
    /// Blocks given up on after the wait warning's delay: time no longer holds for that many.
    private let abandoned = Atomic<Int64>(0)

    init(scheduler: TestScheduler) {
        reference = SchedulerReference(scheduler)
    }

    /// The world's scheduler, while it lives.
    var scheduler: TestScheduler? {
        reference.scheduler.map { unsafeDowncast($0, to: TestScheduler.self) }
    }

    /// Whether time holds for blocks in flight on `clock` (this world's).
    func isHolding(_ clock: UnsafeMutablePointer<schedulers_world_clock>) -> Bool {
        let inFlight = schedulers_world_work_in_flight(clock)
        let given = abandoned.load(ordering: .relaxed)
        if given == 0 { return inFlight > 0 }
        // Abandoned blocks that have finished since no longer count as abandoned.
        if inFlight < given { abandoned.store(inFlight, ordering: .relaxed) }
        return inFlight > given
    }

    /// The last block in flight finished (on its thread): drives waiting for it go on.
    func drained() {
        let blocked = blockedDrives.withLock { drives in
            defer { drives.removeAll() }
            return drives
        }
        for drive in blocked { drive.signal() }
        scheduler?.core.unpark()
    }

    /// Blocks the calling thread (a synchronous drive's) until nothing is in flight on `clock`
    /// or `delay` of real time has passed; then reports and abandons what is still in flight.
    func waitSynchronously(_ clock: UnsafeMutablePointer<schedulers_world_clock>, delay: Duration) {
        let semaphore = DispatchSemaphore(value: 0)
        // Checked under the lock `drained()` takes after the count drops: no lost wake-up.
        let blocked = blockedDrives.withLock { drives in
            guard isHolding(clock) else { return false }
            drives.append(semaphore)
            return true
        }
        guard blocked else { return }
        // Real readings: libdispatch reads the clock for the timeout through the calling
        // thread's slot, which a drive inside the world's own work has set.
        let result = withRealReadings { semaphore.wait(timeout: .now() + .nanoseconds(Int(TestScheduler.nanoseconds(delay)))) }
        guard result == .timedOut else { return }
        blockedDrives.withLock { drives in drives.removeAll { $0 === semaphore } }
        abandon(clock)
    }

    /// Gives up holding time for what is in flight on `clock` now, and reports it, once.
    func abandon(_ clock: UnsafeMutablePointer<schedulers_world_clock>) {
        let inFlight = schedulers_world_work_in_flight(clock)
        guard inFlight > abandoned.load(ordering: .relaxed) else { return }
        abandoned.store(inFlight, ordering: .relaxed)
        guard let scheduler, scheduler.core.warnOnce(.dispatchWorkUnfinished) else { return }
        Warning.emit("""
            \(inFlight) Dispatch block(s) that code in the virtual world of \(scheduler) submitted \
            (\(Self.describe(clock))) have not \
            finished after \(scheduler.waitWarningDelay) of real time. Virtual time held while \
            they ran, so that their answers arrive at the virtual time they were asked for; it \
            now moves on without them. A block that waits for the world itself (a semaphore \
            signalled by a captured task, `DispatchQueue.main.sync`) never finishes while the \
            world waits for it: let it complete through a callback instead. (Once per scheduler.)
            """, about: scheduler)
    }

    /// What is in flight on `clock`: each block's kind and queue, as the test support's Dispatch
    /// definitions record them (a timer's handler is not named).
    private static func describe(_ clock: UnsafeMutablePointer<schedulers_world_clock>) -> String {
        var buffer = [CChar](repeating: 0, count: 512)
        guard schedulers_world_describe(clock, &buffer, buffer.count) != 0 else { return "a timer's handler" }
        let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return text.isEmpty ? "a timer's handler" : text
    }

    /// Schedules `fire(context)` as an action at the virtual time `due` (an `asyncAfter` of the
    /// world whose deadline is virtual); false if the scheduler is gone.
    func schedule(
        at due: VirtualTime, fire: @convention(c) (UnsafeMutableRawPointer?) -> Void, context: UnsafeMutableRawPointer?
    ) -> Bool {
        guard let scheduler else { return false }
        let deadline = DeferredDispatch(fire: fire, context: context)
        scheduler.core.enqueueWithoutDisposable(action: { deadline.fire(deadline.context) }, due: { _ in due })
        return true
    }
}

/// A Dispatch submission waiting for its virtual deadline: C's function and its context, which
/// the function owns and frees when it runs. `@unchecked`: the context crosses to the driving
/// thread once, when the action runs.
private struct DeferredDispatch: @unchecked Sendable {
    let fire: @convention(c) (UnsafeMutableRawPointer?) -> Void
    let context: UnsafeMutableRawPointer?
}
