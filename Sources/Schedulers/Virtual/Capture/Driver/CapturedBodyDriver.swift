@_spi(SchedulersInternal) import Disposables
import Dispatch
import Foundation
import Synchronization

/// The asynchronous `withCapturedTasks`: its body runs as a captured task, in one serial world
/// with the tasks it starts, and the calling task drives that world at the current virtual time
/// while the body runs.
///
/// Why the body is captured too: a test written for swift-clocks' `TestClock` waits for the
/// work it starts in every way Swift allows (`await task.value`, `async let`, a `for await` over
/// a stream, a `Task.yield()` loop, an actor call). If the body ran outside the scheduler, the
/// work it waits for would sit in the scheduler's queue with nobody to run it, and the test
/// would hang without a word. With the body's own jobs queued among the captured ones and run
/// by one driver, FIFO at the current virtual time, the same test gives the same interleaving
/// every run, and time still moves only when the test advances it.
///
/// The driver (the task that called `withCapturedTasks`, on the caller's actor) is never
/// captured: it is what runs the world. While nothing is due at the current virtual time and the
/// body has not returned, it parks until `enqueue` brings work due now. If the body waits that
/// way for longer than ``TestScheduler/waitWarningDelay`` of real time while work is pending at
/// a later virtual time, the scheduler reports one warning naming the earliest due time and the
/// fix: only an advance can bring what the body waits for.
final class CapturedBody: Sendable {
    private let finished = Atomic<Bool>(false)
    /// Cancels the body's task: set once the task exists.
    private let cancellation = Lock<(@Sendable () -> Void)?>(nil)

    var isFinished: Bool { finished.load(ordering: .acquiring) }

    func finish() { finished.store(true, ordering: .releasing) }

    func cancelled(by cancel: @escaping @Sendable () -> Void) {
        cancellation.withLock { $0 = cancel }
    }

    /// Cancels the body's task (a body that can never go on, or a runaway: it was reported).
    /// Its cancelled sleeps throw, and a stream it iterates ends, so the test can end.
    func cancel() {
        cancellation.withLock { $0 }?()
    }
}

/// What the body's task hands back to the driver: its result or error. `@unchecked`: the value
/// crosses from the body's task to the driver's once, after the body has returned.
struct CapturedOutcome<R>: @unchecked Sendable {
    let result: Result<R, any Error>
}

/// The body closure, sent to its own task. `@unchecked`: the driver does not touch it while the
/// body's task runs it, and it does not outlive the capture (`withoutActuallyEscaping`).
struct CapturedBodyClosure<R>: @unchecked Sendable {
    let run: () async throws -> R
}

extension TestScheduler {
    /// How long (in real time) the body of an asynchronous ``withCapturedTasks(isolation:_:)``
    /// may wait at one virtual time, with nothing due then and work pending later, before the
    /// scheduler warns that it waits for something only an advance can bring. Default 3 seconds.
    /// The warning is given once per scheduler; the wait goes on (the test framework's own
    /// time limit still applies).
    public var waitWarningDelay: Duration {
        get { .nanoseconds(waitWarningNanoseconds.load(ordering: .relaxed)) }
        set {
            waitWarningNanoseconds.store(Self.nanoseconds(newValue), ordering: .relaxed)
        }
    }

    /// `duration` in whole nanoseconds, clamped to `0...Int64.max`.
    static func nanoseconds(_ duration: Duration) -> Int64 {
        let nanoseconds = duration.attoseconds / 1_000_000_000
        return Int64(clamping: max(0, nanoseconds))
    }

    /// Runs `body` as a captured task and drives this scheduler at the current virtual time
    /// until it returns (see ``CapturedBody``).
    func runCapturedBody<R>(
        _ closure: CapturedBodyClosure<R>, advancing: Advancing, isolation: isolated (any Actor)?
    ) async -> Result<R, any Error> {
        let state = CapturedBody()
        // A task that prefers this scheduler: its first job and every nonisolated one is queued
        // here directly (an `async let` child's first job went to the global pool first and
        // crossed threads to get here, about 70 µs a capture, and raced the driver); its
        // main-actor jobs reach the stand-in as every captured task's do (CapturedTasks.swift).
        // It copies the caller's task-local values and priority; cancellation is passed on
        // below. The task keeps the scheduler alive until it ends.
        let task = Self.startBody(closure, on: self, state: state)
        state.cancelled { task.cancel() }
        await withTaskCancellationHandler {
            await driveWhileRunning(state, automatically: advancing == .automatically, isolation: isolation)
        } onCancel: {
            task.cancel()
        }
        return await task.value.result
    }

    private nonisolated static func startBody<R>(
        _ closure: CapturedBodyClosure<R>, on scheduler: TestScheduler, state: CapturedBody
    ) -> Task<CapturedOutcome<R>, Never> {
        Task(executorPreference: scheduler) {
            // Entered as captured, so that what it starts while running elsewhere is captured too.
            CapturedTaskIdentity.enterCurrentTask(for: scheduler)
            // Waiting, between its own jobs: work arriving from outside then is awaited.
            let address = CapturedTasks.currentTaskAddress
            scheduler.arrivals.bodyBegan(address)
            let outcome = await CapturedTasks.$lifetime.withValue(scheduler.captureLifetimes.begin()) {
                do { return CapturedOutcome(result: .success(try await closure.run())) } catch {
                    return CapturedOutcome<R>(result: .failure(error))
                }
            }
            scheduler.arrivals.bodyEnded(address)
            state.finish()
            scheduler.core.unpark()
            return outcome
        }
    }

    /// Runs what is due at the current virtual time, one action at a time, until `body` is
    /// finished; parks while nothing is due. `automatically`, it moves time on by itself while
    /// the world is idle (TestScheduler+Advancing.swift).
    private func driveWhileRunning(
        _ body: CapturedBody, automatically: Bool, isolation: isolated (any Actor)?
    ) async {
        var episode = WaitEpisode(time: core.now)
        // One for the whole wait, so that rounds of nothing but yields are counted across steps
        // (VirtualTimeCore.DriveMoment): a body that yields many times in a row goes on, one that
        // yields until a later time parks.
        var moment = VirtualTimeCore.DriveMoment()
        var advancing = AutomaticAdvance()
        while !body.isFinished {
            let now = core.now
            if now != episode.time {
                episode = WaitEpisode(time: now)
                advancing.yieldRounds = 0
            }
            // The body's sleeps let time pass, in a manual capture too: a test that sleeps sees
            // what happens up to its deadline (`arrivals.isBodySleeping`, `wakeUpOfBody(_:)`).
            // A runaway's body was cancelled (TestScheduler+Advancing.swift): time moves no more
            // by itself, so the driver parks instead of running the runaway work for ever.
            if (automatically && !advancing.stopped) || arrivals.isBodySleeping,
                let next = await idleUntil(now, body: body, &advancing, isolation: isolation)
            {
                if body.isFinished { break }
                await advance(to: next, &advancing, body: body, isolation: isolation)
                // The earliest pending action ran at its time: its own drive, like any other.
                continue
            }
            if body.isFinished { break }
            if await driveOne(through: now, &moment, isolation: isolation) {
                // Busy at one virtual time for that long (a loop of `Task.yield()` waiting for
                // a sleep to end, say) is waiting for time too.
                if !automatically, episode.hasLasted(waitWarningDelay) { warnWaitingForTime() }
                continue
            }
            if body.isFinished { break }
            await park(until: body, episode: episode, advancesByItself: automatically && !advancing.stopped)
        }
    }

    /// Parks the driver until work is due now or `body` has finished; arms the warning, or the
    /// report of a body that can never go on. Not at all if time could move by itself now
    /// (`advancesByItself`, or the body sleeps) and nothing holds it any more: the driver's
    /// last look may have found Dispatch work of the world in flight that has finished since,
    /// whose wake-up came before the parking (measured: a repeating timer source's test hung
    /// after a tick, 2 runs in 30 under ThreadSanitizer beside a busy core).
    private func park(until body: CapturedBody, episode: WaitEpisode, advancesByItself: Bool) async {
        let generation = parkGeneration.add(1, ordering: .relaxed).newValue
        whileParked(generation, after: waitWarningDelay - episode.elapsed) { $0.warnWaitingForTime() }
        whileParked(generation, after: waitWarningDelay * Self.cannotGoOnDelays - episode.elapsed) {
            $0.reportIfCannotGoOn(body)
            return true
        }
        if Task.isCancelled {
            // Cancelled (a time limit): cancelled sleeps throw, so the body can still end. The
            // driver no longer parks (nothing would wake a cancelled wait); it polls every 10 ms
            // of real time instead of spinning (a Dispatch timer: a cancelled `Task.sleep`
            // would return at once).
            await withCheckedContinuation { (driver: CheckedContinuation<Void, Never>) in
                withRealReadings {
                    DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(10)) { driver.resume() }
                }
            }
        } else {
            await withTaskCancellationHandler {
                await withCheckedContinuation { (driver: CheckedContinuation<Void, Never>) in
                    let parked = core.park(driver, unless: { body.isFinished || Task.isCancelled }) {
                        (advancesByItself || arrivals.isBodySleeping) && dispatchHold(core.worldClockPointer) == nil
                    }
                    if !parked { driver.resume() }
                }
            } onCancel: {
                core.unpark()
            }
        }
        parkGeneration.add(1, ordering: .relaxed)
    }

    /// The wake-up of a sleep that the running task is about to make, given as `wake`: if the
    /// task is the body of an asynchronous capture of this scheduler, a wake-up that lets the
    /// world go quiet at its deadline first, and marks the body asleep.
    ///
    /// **The body's sleeps let time pass.** A test that sleeps until a time expects to see what
    /// has happened by then, as a test that slept in real time would: every task woken at that
    /// time, and every job that follows from them at that time, has run when the test goes on.
    /// So at its deadline the body's wake-up is held like a `Task.yield()` (VirtualTimeCore's
    /// held yields): it is released once nothing else is due at that time. And while the body
    /// sleeps, a manually advanced capture moves time on by itself as an automatic one does, to
    /// the body's deadline at the most (its wake-up is pending there), so the sleep ends instead
    /// of waiting for a drive nobody can make: swift-clocks' "let a little time pass" line
    /// (`try await Task.sleep(for: .seconds(0.1))` in the body) ports as written.
    func wakeUpOfBody(_ wake: @escaping @Sendable () -> Void) -> @Sendable () -> Void {
        guard arrivals.isBodyRunning else { return wake }
        arrivals.bodySleeps()
        return { [core] in core.holdYield(wake) }
    }

    /// Runs `check` once `delay` of real time has passed (at once if it has), if the driver is
    /// still parked in the parking `generation` counts; again every ``waitWarningDelay`` while
    /// it is and `check` says it could not decide yet (false).
    ///
    /// Again, because what a check looks at can come later than the parking without waking the
    /// driver: a task the body started may make its first sleep only after the driver parked
    /// (on a loaded machine, measured: a 100 ms warning never given in a 30 s wait), and a
    /// sleep due later does not wake a parked driver. Real time, read as real on any thread
    /// (`withRealReadings`): the delays are the package's own, never a world's.
    private func whileParked(
        _ generation: UInt64, after delay: Duration, _ check: @escaping @Sendable (TestScheduler) -> Bool
    ) {
        if delay <= .zero, check(self) { return }
        let wait = delay > .zero ? delay : waitWarningDelay
        withRealReadings {
            DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(Self.nanoseconds(wait)))) {
                [weak self] in
                guard let self, self.parkGeneration.load(ordering: .relaxed) == generation, self.core.hasParkedDriver else {
                    return
                }
                if !check(self) { self.whileParked(generation, after: self.waitWarningDelay, check) }
            }
        }
    }

    /// How many ``waitWarningDelay``s a body waits with nothing due, pending or in flight before
    /// it is reported as one that can never go on: 30 seconds by default. Longer than the
    /// delay of the warnings, because only the outside world could still answer it, and a
    /// loaded machine (a sanitizer beside a busy core) can hold that answer back for seconds.
    static var cannotGoOnDelays: Int { 10 }

    /// Reports a body that can never go on, and cancels its task so that the test can end.
    ///
    /// Go's `testing/synctest` calls it a deadlock: nothing is due, nothing is pending at a
    /// later time, no Dispatch work of the world is in flight, and the body still waits (an
    /// `AsyncStream` nobody finishes, a continuation nobody resumes). Nothing the world holds
    /// can bring what it waits for. Only the outside world still could (a real network
    /// request, a thread the test started), so the decision waits ten ``waitWarningDelay``s of
    /// real time first (``cannotGoOnDelays``); a test that waits for the outside world longer
    /// raises the delay.
    private func reportIfCannotGoOn(_ body: CapturedBody) {
        guard !body.isFinished, core.earliestPendingTime() == nil,
            core.state.withLock({ $0.heldYields.isEmpty }), dispatchHold(core.worldClockPointer) == nil,
            core.warnOnce(.bodyCannotGoOn)
        else { return }
        // Noticed on a Dispatch thread, where the report would reach no test: given in the
        // test's own code, when the cancelled body lets the capture end.
        arrivals.defer("""
            the body of withCapturedTasks on \(self) can never go on: it has waited \
            \(waitWarningDelay * Self.cannotGoOnDelays) of real time with nothing due, nothing \
            pending and no Dispatch work of its world in flight, so its task is cancelled. Finish \
            what it awaits (an AsyncStream's continuation, a CheckedContinuation, the task it \
            waits for), or, if it waits for the real world (a network request), raise \
            waitWarningDelay. (Once per scheduler.)
            """)
        body.cancel()
    }

    /// Prints, once per scheduler, that the body waits for something only time can bring.
    /// - Returns: false when nothing is pending yet, so that it cannot tell (the caller looks
    ///   again later); true once it has warned or has no reason to.
    @discardableResult
    private func warnWaitingForTime() -> Bool {
        guard let earliest = core.earliestPendingTime() else { return false }
        guard earliest > core.now, core.warnOnce(.waitingForTime) else { return true }
        let now = Instant(time: core.now)
        let due = Instant(time: earliest)
        Warning.emit("""
            the body of withCapturedTasks on \(self) has waited more than \(waitWarningDelay) of real \
            time with nothing due now; advance virtual time before waiting for work that sleeps: \
            `await scheduler.clock.advance(by:)` (or `advance(to:)`, or `clock.run()`).
            Nothing is due at the current virtual time (\(format(now.date))); the earliest pending \
            work is due at \(format(due.date)), \(now.duration(to: due)) later. Virtual time moves \
            only when the test advances it. (Once per scheduler.)
            """, about: self, kind: .help)
        return true
    }

    private typealias Instant = TestScheduler.Clock.Instant

    private func format(_ date: Date) -> String {
        "\(date.timeIntervalSinceReferenceDate) s after 2001-01-01"
    }
}

/// How long the driver has been at one virtual time, in real time.
private struct WaitEpisode {
    let time: VirtualTime
    // Real time on any thread: the delays are the package's own, never a world's.
    let start = withRealReadings { ContinuousClock.now }

    init(time: VirtualTime) {
        self.time = time
    }

    var elapsed: Duration { withRealReadings { ContinuousClock.now } - start }

    func hasLasted(_ delay: Duration) -> Bool { elapsed > delay }
}
