@_spi(SchedulersInternal) import Disposables
import Foundation
import CurrentSchedulerSlot
import Synchronization

/// A scheduler in virtual time, for tests: nothing runs until the test drives it with
/// ``step()``, ``step(_:)``, ``stepAll()``, ``advance(by:)-(TimeInterval)`` or ``advance(to:)``.
///
/// - **Order.** Actions run by due date; equal dates run in the order they were scheduled. A
///   repeating action keeps, at every occurrence, the place in that order it got when it was
///   first scheduled.
/// - **Time.** ``now`` starts at `startDate` and never moves backwards. ``schedule(_:)`` is due at
///   ``now``; a date in the past means ``now``; ``schedule(afterDelay:_:)`` counts from the virtual
///   ``now``, never the wall clock. While an action runs, ``now`` is its due date. Repeating
///   actions recur every `interval` of virtual time after the time they ran; leeway is ignored.
/// - **Exact.** Virtual time is whole attoseconds since 2001-01-01, not a `Double`: `Duration`s
///   add exactly, a `Double` of seconds means the decimal it was written as (0.3 is 300 ms, so
///   `schedule(after: .milliseconds(300))` runs in `advance(by: 0.3)`), and ``now`` reads back
///   the very date an action was scheduled at. Exact within ±2^62 s of 2001; beyond, as exact as
///   a `Double`. A repeat whose next time would not be finite ends.
/// - **Dates.** A `Date` is a `Double`, about 119 ns apart in 2026, so `now.addingTimeInterval(x)`
///   is rounded and is not exactly `now + x`. A date means the time it plausibly denotes at its
///   precision: read against the exact ``now``, the whole number of microseconds within one
///   spacing of `Double`s of it, if there is one (else its own value). So for start dates from
///   2001 to 2100, `Date()` included, and any `x` on a microsecond grid,
///   `schedule(after: now.addingTimeInterval(x))` runs in `advance(by: x)` (seconds or
///   `Duration`), `schedule(afterDelay: x)` runs in `advance(to: now.addingTimeInterval(x))`, and
///   `sleep(until:)` and clock instants made from dates agree with relative advances.
/// - **Swift Concurrency.** `Duration`s, `sleep`, `timer(every:)` and ``clock`` are virtual too,
///   and the scheduler is a `TaskExecutor` whose jobs run only when it is driven
///   (TestScheduler+Executor.swift, TestScheduler+Clock.swift).
/// - **Threads.** Thread-safe: any thread may schedule or dispose while another drives it.
///   Actions run on the driving thread, as ``Scheduler/current``, outside the scheduler's lock,
///   so they may schedule, dispose, or drive the scheduler further.
/// - **Serial.** Like every scheduler here, it never runs two actions at once. Driving is
///   serial: a thread that calls ``step()``, ``step(_:)``, ``stepAll()``, ``advance(by:)-(TimeInterval)`` or
///   ``advance(to:)`` while another thread is inside one of them waits until that call returns.
///   (So an action must not wait for another thread that drives this scheduler.) An action that
///   drives the scheduler itself, on its own thread, does not wait.
/// - **Disposal.** A disposed action is released at once and skipped when its time comes; it
///   uses up no step.
/// - **Lifetime.** Nothing pending keeps the scheduler alive. When it is deinitialised, pending
///   actions are released without running, and so are the later jobs of captured tasks that
///   outlive it.
///
/// - Complexity: scheduling and running an action are O(log n) in the number pending.
public final class TestScheduler: Scheduler, @unchecked Sendable {
    /// Shared with ``Clock`` and with pending actions, which must not keep the scheduler alive.
    let core: VirtualTimeCore

    /// Makes driving serial across threads (see "Serial" above).
    let driver = DriverLock()

    /// The main actor's executor for the tasks this scheduler captures, made on first use and
    /// never freed (why: MainActorStandIn.swift, "Lifetime"); 0 until then.
    private let standInAddress = Atomic<UInt>(0)

    /// Set by the first `withCapturedTasks`: from then on, global jobs and main-actor work
    /// started by this scheduler's actions and jobs are captured too.
    private let capturesTasks = Atomic<Bool>(false)
    /// The adopted task whose wake-up is running, until its next job is queued here
    /// (TestScheduler+AdoptedTasks.swift): its address, with bit 0 set once the task has
    /// committed to hop here; 0 while no wake-up waits.
    let rejoiningTask = Atomic<UInt>(0)
    /// Whether this scheduler is counted in ``CapturedTasks/capturingSchedulers``: since its
    /// first capture or its first adopted task (TestScheduler+AdoptedTasks.swift).
    private let countedIn = Atomic<Bool>(false)

    /// ``waitWarningDelay``, in nanoseconds.
    let waitWarningNanoseconds = Atomic<Int64>(3_000_000_000)

    /// Counts the parkings of an asynchronous capture's driver, so that a warning armed for one
    /// parking does not fire in a later one (CapturedBodyDriver.swift).
    let parkGeneration = Atomic<UInt64>(0)

    /// The hook tenures its captures' tasks hold (CaptureLifetime.swift), ended by `deinit`.
    let captureLifetimes = CaptureLifetimes()

    /// Work of captured tasks arriving from outside virtual time (OutsideArrivals.swift).
    let arrivals = OutsideArrivals()

    /// ``captureMarker``'s address, or 0 before the first capture.
    private let markerAddress = Atomic<UInt>(0)

    /// A scheduler whose ``now`` starts at `startDate`.
    ///
    /// - Parameter startDate: the first virtual time. `Date.distantPast` and `.distantFuture` are
    ///   ordinary dates.
    /// - Precondition: `startDate` is finite (not NaN or infinite); the message names the value.
    public init(startDate: Date = Date(timeIntervalSinceReferenceDate: 0)) {
        if !startDate.timeIntervalSinceReferenceDate.isFinite {
            badInput("TestScheduler.init(startDate:): the start date must be finite, got \(startDate.timeIntervalSinceReferenceDate)")
        }
        core = VirtualTimeCore(now: VirtualTime(startDate))
        super.init(name: "org.schedulers.testScheduler")
    }

    deinit {
        // First: from here on, a job handed to the stand-in (a task resuming after the test)
        // is released without running, and nothing retains this scheduler through it.
        let standIn = standInAddress.load(ordering: .acquiring)
        if standIn != 0 {
            Unmanaged<MainActorStandIn>.fromOpaque(UnsafeRawPointer(bitPattern: standIn)!).takeUnretainedValue().detach()
        }
        if countedIn.load(ordering: .relaxed) {
            CapturedTasks.capturingSchedulers.subtract(1, ordering: .relaxed)
        }
        emitPendingReport()
        captureLifetimes.endAll()
        let marker = markerAddress.load(ordering: .acquiring)
        if marker != 0 {
            let made = Unmanaged<CaptureMarker>.fromOpaque(UnsafeRawPointer(bitPattern: marker)!)
            made.takeUnretainedValue().close()
            CapturedTaskIdentity.forget(made.takeUnretainedValue())
            made.release()
        }
        core.close()
        core.discardPending()
    }

    /// The main actor's executor for the tasks this scheduler captures (TestScheduler+CapturedTasks.swift).
    var mainActorStandIn: MainActorStandIn {
        let address = standInAddress.load(ordering: .acquiring)
        if address != 0 { return Unmanaged.fromOpaque(UnsafeRawPointer(bitPattern: address)!).takeUnretainedValue() }
        // Never freed: tasks keep unowned references to it.
        let made = MainActorStandIn.make(for: self)
        let (exchanged, found) = standInAddress.compareExchange(
            expected: 0, desired: UInt(bitPattern: Unmanaged.passUnretained(made).toOpaque()), ordering: .acquiringAndReleasing)
        if exchanged { return made }
        // Another thread made one first (rare): this one, never handed out, cannot be freed
        // either (32 bytes); detached, it would release any job.
        made.detach()
        return Unmanaged.fromOpaque(UnsafeRawPointer(bitPattern: found)!).takeUnretainedValue()
    }

    /// This scheduler, weakly, as ``CapturedTaskIdentity`` enters it for every task it captures.
    /// Made on the first capture, released in `deinit` once the entries are gone.
    var captureMarker: CaptureMarker {
        let address = markerAddress.load(ordering: .acquiring)
        if address != 0 { return Unmanaged.fromOpaque(UnsafeRawPointer(bitPattern: address)!).takeUnretainedValue() }
        let made = Unmanaged.passRetained(CaptureMarker(self))
        let (exchanged, found) = markerAddress.compareExchange(
            expected: 0, desired: UInt(bitPattern: made.toOpaque()), ordering: .acquiringAndReleasing)
        if exchanged { return made.takeUnretainedValue() }
        made.release()
        return Unmanaged.fromOpaque(UnsafeRawPointer(bitPattern: found)!).takeUnretainedValue()
    }

    /// Whether this scheduler has captured tasks (see ``withCapturedTasks(_:)``).
    var hasCapturedTasks: Bool {
        capturesTasks.load(ordering: .relaxed)
    }

    /// Called by each `withCapturedTasks`; the first call counts this scheduler in, so the hooks
    /// start looking, and makes the world clock its work reads (WorldClock.swift).
    func startCapturing() {
        // Only where something reads it: a binary that links the test support's clock_gettime.
        if schedulers_virtual_readings_are_installed() != 0, core.worldClockPointer == nil { _ = core.beginWorldClock(for: self) }
        capturesTasks.store(true, ordering: .relaxed)
        countIn()
    }

    /// Counts this scheduler in once, so that the hooks look up the jobs enqueued from now on.
    func countIn() {
        if countedIn.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged {
            CapturedTasks.capturingSchedulers.add(1, ordering: .relaxed)
        }
    }

    /// True: pending work lives in this scheduler's queue, so it must not hold the scheduler.
    public override var storesPendingWork: Bool { true }

    /// The virtual time: where the test has driven the scheduler to, and while an action runs,
    /// that action's due date. Never infinite, never moving backwards. At a time read from a
    /// date (``schedule(after:_:)-(Date,_)``, ``advance(to:)``), the very date given.
    public override var now: Date {
        let time = core.now
        return core.dateReadings?.date(at: time) ?? time.date
    }

    /// How many actions are scheduled, not disposed, and will still run. A live repeating action
    /// counts once. - Complexity: O(1).
    public var pendingCount: Int {
        core.state.withLock { $0.liveCount }
    }

    // MARK: Scheduling

    /// Schedules `action` at ``now``, after everything already due then.
    ///
    /// - Parameter action: the work to run when the scheduler is driven, on the driving thread.
    /// - Returns: a disposable that stops the action from running and releases it.
    @discardableResult
    public override func schedule(_ action: @escaping @Sendable () -> Void) -> (any Disposable)? {
        core.enqueue(interval: nil, action: action) { now in now }
    }

    /// Schedules `action` at `date` in virtual time (at ``now`` if `date` is past or NaN).
    ///
    /// The date means the time it plausibly denotes at its precision (see "Dates." above):
    /// `schedule(after: now.addingTimeInterval(x))` runs in `advance(by: x)` for any `x` on a
    /// microsecond grid, at any start date from 2001 to 2100, and ``now`` reads `date` while
    /// the action runs.
    ///
    /// - Parameters:
    ///   - date: the virtual time to run it at.
    ///   - action: the work to run when the scheduler is driven, on the driving thread.
    /// - Returns: a disposable that stops the action from running and releases it.
    @discardableResult
    public override func schedule(after date: Date, _ action: @escaping @Sendable () -> Void) -> (any Disposable)? {
        if date.timeIntervalSinceReferenceDate.isNaN { return schedule(action) }
        // The due time through the core alone: a closure that captured `self` retained it.
        return guaranteedCore { core in core.enqueue(interval: nil, action: action) { now in core.resolve(date, against: now) } }
    }

    /// Schedules `action` `delay` seconds of virtual time after ``now``.
    ///
    /// - Parameters:
    ///   - delay: seconds of virtual time after ``now``.
    ///   - action: the work to run when the scheduler is driven, on the driving thread.
    /// - Returns: a disposable that stops the action from running and releases it.
    @discardableResult
    public override func schedule(afterDelay delay: TimeInterval, _ action: @escaping @Sendable () -> Void) -> (any Disposable)? {
        if delay.isNaN { return schedule(action) }
        let span = VirtualTime(seconds: delay)
        return core.enqueue(interval: nil, action: action) { now in now + span }
    }

    /// Schedules `action` at `date`, then every `interval` seconds of virtual time after each run,
    /// until disposed. `leeway` is validated but otherwise ignored.
    ///
    /// - Parameters:
    ///   - date: the first run, in virtual time.
    ///   - interval: seconds of virtual time between runs.
    ///   - leeway: validated, then ignored.
    ///   - action: the work to run each time, on the driving thread.
    /// - Returns: a disposable that stops future runs.
    /// - Precondition: `interval` is finite and greater than zero; `leeway` is zero or more.
    @discardableResult
    public override func schedule(
        after date: Date, repeatingEvery interval: TimeInterval, withLeeway leeway: TimeInterval = 0,
        _ action: @escaping @Sendable () -> Void
    ) -> (any Disposable)? {
        RepeatPreconditions.check(interval: interval, leeway: leeway)
        let isNaN = date.timeIntervalSinceReferenceDate.isNaN
        return core.enqueue(interval: VirtualTime(seconds: interval), action: action) { now in
            isNaN ? now : resolve(date, against: now)
        }
    }

    // MARK: Durations (virtual, like everything here)

    /// Schedules `action` `delay` of virtual time after ``now``.
    ///
    /// - Parameters:
    ///   - delay: virtual time to wait; zero or negative means at ``now``.
    ///   - action: the work to run on the driving thread.
    /// - Returns: a disposable that stops the action from running and releases it at once.
    @discardableResult
    public override func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> (any Disposable)? {
        let span = VirtualTime(delay)
        return core.enqueue(interval: nil, action: action) { now in now + span }
    }

    /// Schedules `action` `delay` of virtual time after ``now``, then every `interval` of virtual
    /// time after each run, until disposed. `leeway` is validated but otherwise ignored.
    ///
    /// - Parameters:
    ///   - delay: until the first run; zero or negative means at ``now``.
    ///   - interval: between runs; must be greater than zero.
    ///   - leeway: zero or more; ignored.
    ///   - action: the work to run on the driving thread at every occurrence.
    /// - Returns: a disposable that stops future runs and releases `action`.
    /// - Precondition: `interval > .zero` and `leeway >= .zero`.
    @discardableResult
    public override func schedule(
        after delay: Duration, repeatingEvery interval: Duration, leeway: Duration = .zero,
        _ action: @escaping @Sendable () -> Void
    ) -> (any Disposable)? {
        RepeatPreconditions.check(interval: interval, leeway: leeway)
        let span = VirtualTime(delay)
        return core.enqueue(interval: VirtualTime(interval), action: action) { now in now + span }
    }

    // MARK: Exact times (for the clock and the timer, which must not round through a Date)

    /// Schedules `action` at the exact virtual time `time` (at ``now`` if that is past).
    func schedule(at time: VirtualTime, _ action: @escaping @Sendable () -> Void) -> any Disposable {
        core.enqueue(interval: nil, action: action) { _ in time }
    }

    /// Schedules `action` at `deadline` (at ``now`` if that is past): for an instant made from a
    /// date, the time that date denotes at ``now`` (as ``schedule(after:_:)-(Date,_)``).
    func schedule(at deadline: Clock.Instant, _ action: @escaping @Sendable () -> Void) -> any Disposable {
        core.enqueue(interval: nil, action: action) { now in resolve(deadline, against: now) }
    }

    /// Schedules `action` at `time`, then every `interval` after each run, until disposed.
    func schedule(
        at time: VirtualTime, repeatingEvery interval: VirtualTime, _ action: @escaping @Sendable () -> Void
    ) -> any Disposable {
        core.enqueue(interval: interval, action: action) { _ in time }
    }

    // MARK: Driving

    /// Runs the earliest pending action, moving ``now`` forward to its date if that is later.
    /// Does nothing when none is pending. Disposed actions are skipped and use up no step.
    public func step() {
        drive {
            var moment = VirtualTimeCore.DriveMoment()
            _ = runNext(through: nil, &moment)
        }
    }

    /// Runs at most `ticks` pending actions, as ``step()`` would, one after another.
    ///
    /// - Parameter ticks: the most actions to run.
    /// - Precondition: `ticks` is zero or more.
    public func step(_ ticks: Int) {
        if ticks < 0 { badInput("TestScheduler.step(_:): the tick count must be zero or more, got \(ticks)") }
        drive {
            var moment = VirtualTimeCore.DriveMoment()
            for _ in 0..<ticks {
                guard runNext(through: nil, &moment) else { return }
            }
        }
    }

    /// Runs actions until none is pending, including those scheduled meanwhile.
    ///
    /// Never returns while a repeating action is live: dispose it from one of the actions, or
    /// use ``advance(by:)-(TimeInterval)`` instead.
    public func stepAll() {
        drive {
            var moment = VirtualTimeCore.DriveMoment()
            while runNext(through: nil, &moment) {}
        }
    }

    /// Runs, in order, every action due up to `now + interval`, including those scheduled
    /// meanwhile, then leaves ``now`` there. A negative interval runs what is due at ``now``.
    ///
    /// An infinite interval runs everything pending, like ``stepAll()`` (never returning while a
    /// repeating action is live), and leaves ``now`` at the last action's date, never at infinity.
    ///
    /// - Parameter interval: seconds of virtual time; not NaN.
    /// - Precondition: `interval` is not NaN; the message names the method and the value.
    public func advance(by interval: TimeInterval) {
        if interval.isNaN { badInput("TestScheduler.advance(by:): the interval must not be NaN, got \(interval)") }
        let span = VirtualTime(seconds: interval)
        drive { run(through: core.now + span) }
    }

    /// Runs, in order, every action due up to `now + duration`, including those scheduled
    /// meanwhile, then leaves ``now`` there, exactly: a thousand advances by
    /// `.milliseconds(1)` make exactly one second on ``clock``, and meet an action scheduled
    /// `.seconds(1)` ahead. A negative duration runs what is due at ``now``.
    ///
    /// An addition to the API in the contract (which lists the `TimeInterval` form); the same
    /// as ``advance(by:)-(TimeInterval)`` given the duration in seconds, except that no
    /// rounding to a `Double` happens on the way.
    ///
    /// - Parameter duration: how far to move virtual time.
    public func advance(by duration: Duration) {
        let span = VirtualTime(duration)
        drive { run(through: core.now + span) }
    }

    /// Runs, in order, every action due up to `date`, including those scheduled meanwhile, then
    /// moves ``now`` to `date`, which it then reads. A date before ``now`` runs what is due at
    /// ``now`` and leaves it unchanged. The date is read as ``schedule(after:_:)-(Date,_)`` reads
    /// it: `advance(to: now.addingTimeInterval(x))` runs what `schedule(afterDelay: x)` scheduled,
    /// for any `x` on a microsecond grid.
    ///
    /// An infinite date runs everything pending, like ``stepAll()`` (never returning while a
    /// repeating action is live), and leaves ``now`` at the last action's date, never at
    /// infinity. `Date.distantFuture` is an ordinary finite date.
    ///
    /// - Parameter date: the virtual time to reach; not NaN.
    /// - Precondition: `date` is not NaN; the message names the method and the value.
    public func advance(to date: Date) {
        let target = date.timeIntervalSinceReferenceDate
        if target.isNaN { badInput("TestScheduler.advance(to:): the date must not be NaN, got \(target)") }
        drive { run(through: resolve(date)) }
    }

    // MARK: Dates (read against `now`: VirtualTime+Dates.swift)

    /// The time `date` (not NaN) denotes when virtual time is `now`. Where that time's own date
    /// is not `date`, ``now`` will read `date` there. Call it under the core's lock (as
    /// `enqueue`'s `due` does) or while driving, so that `now` cannot move meanwhile.
    func resolve(_ date: Date, against now: VirtualTime) -> VirtualTime {
        core.resolve(date, against: now)
    }

    /// The time `date` denotes now (see ``resolve(_:against:)``). Call it while driving.
    func resolve(_ date: Date) -> VirtualTime {
        resolve(date, against: core.now)
    }

    /// Whether `deadline` is at or before ``now`` as the scheduler reads it (a date read as
    /// ``resolve(_:)`` reads it, without recording anything): a sleep until it returns at once.
    func hasReached(_ deadline: Clock.Instant) -> Bool {
        let now = core.now
        guard let date = deadline.madeFrom else { return deadline.time <= now }
        let reading = core.dateReadings?.date(at: now)?.timeIntervalSinceReferenceDate
        return VirtualTime.resolving(seconds: date.timeIntervalSinceReferenceDate, against: now, reading: reading).time <= now
    }

    /// The time `deadline` denotes now: one made from a date is read as ``resolve(_:)`` reads
    /// dates, any other is its exact time. Call it while driving, or under the core's lock.
    func resolve(_ deadline: Clock.Instant, against now: VirtualTime) -> VirtualTime {
        guard let date = deadline.madeFrom else { return deadline.time }
        return resolve(date, against: now)
    }

    /// Calls `body` with ``core`` without retaining it: the scheduler holds it for its whole
    /// life, and `self` is alive for the call. (Read as a property, the core was retained and
    /// released around each `schedule` and each action run: two atomic operations a time,
    /// a tenth of a scheduled action's cost where atomics are slow.)
    @inline(__always)
    func guaranteedCore<Result>(_ body: (VirtualTimeCore) -> Result) -> Result {
        Unmanaged.passUnretained(core)._withUnsafeGuaranteedRef(body)
    }

    // MARK: Driving primitives (call them inside `driver.drive`)

    /// A drive the test asked for (`advance`, `step`, `stepAll`): serial (``DriverLock``), and
    /// counted, so that work arriving from outside meanwhile is known not to be awaited
    /// (OutsideArrivals.swift).
    /// Each begins a drive epoch (OutsideArrivals.swift), so that work arriving from outside
    /// after the test drove is told from work that came before.
    private func drive(_ body: () -> Void) {
        emitPendingReport()
        arrivals.explicitDrive {
            core.advanceDriveEpoch()
            driver.drive(body)
        }
    }

    /// Runs everything due up to `target`, then moves `now` there if that is later and finite
    /// (an infinite target leaves `now` at the last action's time). Call it while driving.
    func run(through target: VirtualTime) {
        // Never backwards: an earlier target (-infinity included) runs what is due at `now`.
        let limit = max(target, core.now)
        var moment = VirtualTimeCore.DriveMoment()
        repeat {
            while runNext(through: limit, &moment) {}
        } while !core.finishDrive(through: limit)
    }

    /// Runs `action` as ``Scheduler/current``, and, once this scheduler has captured, with its
    /// world clock as the calling thread's (WorldClock.swift): the real clocks read virtual time
    /// there while it runs.
    @inline(__always)
    func runInWorld(_ action: () -> Void) {
        runInWorld(action, clock: core.worldClockPointer)
    }

    /// ``runInWorld(_:)`` with the world clock the caller has read already.
    @inline(__always)
    private func runInWorld(_ action: () -> Void, clock: UnsafeMutablePointer<schedulers_world_clock>?) {
        guard let clock else { return performAsCurrentScheduler(action) }
        let outer = schedulers_world_clock_get()
        schedulers_world_clock_set(clock)
        defer { schedulers_world_clock_set(outer) }
        performAsCurrentScheduler(action)
    }

    /// Pops the next live action due no later than `limit` (any, if nil), moving `now` to its
    /// time if later, and runs it here, outside the lock. While Dispatch work the world submitted
    /// is in flight, only what is due at `now` runs, and when nothing is, this waits for that
    /// work (blocking: a synchronous drive) before looking again (WorldDispatchWork.swift).
    /// Call it while driving.
    /// - Returns: whether one ran.
    func runNext(through limit: VirtualTime?, _ moment: inout VirtualTimeCore.DriveMoment) -> Bool {
        while true {
            switch runNextUnlessHeld(through: limit, &moment) {
            case .ran: return true
            case .idle: return false
            case .held(let clock, let work): work.waitSynchronously(clock, delay: waitWarningDelay)
            }
        }
    }

    /// What ``runNextUnlessHeld(through:_:)`` did.
    enum NextRun {
        case ran
        /// Nothing is due by the limit, and nothing holds time.
        case idle
        /// Nothing is due now, and Dispatch work of the world is in flight on `clock`.
        case held(UnsafeMutablePointer<schedulers_world_clock>, WorldDispatchWork)
    }

    /// ``runNext(through:_:)`` without the wait: the asynchronous drives wait without holding
    /// a thread.
    @inline(__always)
    func runNextUnlessHeld(through limit: VirtualTime?, _ moment: inout VirtualTimeCore.DriveMoment) -> NextRun {
        // One read of the world clock for the hold and the run.
        let clock = core.worldClockPointer
        let hold = dispatchHold(clock)
        var next = VirtualTimeCore.Popped()
        // Held, time stays where it is: only what is due now may run, and yields held until the
        // moment has nothing else due wait for the work that may still bring some.
        let bound = hold == nil ? limit : core.now
        guard let action = guaranteedCore({ $0.popNext(through: bound, &next, moment: &moment, releasingYields: hold == nil) })
        else {
            guard let hold else { return .idle }
            return .held(hold.clock, hold.work)
        }
        runInWorld(action, clock: clock)
        if next.isRepeating {
            core.requeue(slot: next.slot, sequence: next.sequence, ranAt: next.time)
        }
        return .ran
    }

    /// The world's clock and Dispatch work, if blocks it submitted are in flight and hold time.
    @inline(__always)
    func dispatchHold(
        _ worldClock: UnsafeMutablePointer<schedulers_world_clock>?
    ) -> (clock: UnsafeMutablePointer<schedulers_world_clock>, work: WorldDispatchWork)? {
        guard let clock = worldClock, schedulers_world_work_in_flight(clock) > 0 else { return nil }
        let work = Unmanaged<WorldDispatchWork>.fromOpaque(clock.pointee.owner!).takeUnretainedValue()
        return work.isHolding(clock) ? (clock, work) : nil
    }
}
