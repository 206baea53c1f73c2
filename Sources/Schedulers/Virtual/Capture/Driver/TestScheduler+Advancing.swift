@_spi(SchedulersInternal) import Disposables
import Dispatch

extension TestScheduler {
    /// How virtual time moves inside an asynchronous capture
    /// (``TestScheduler/withCapturedTasks(advancing:isolation:_:)``).
    public struct Advancing: Sendable, Hashable {
        private let automatic: Bool

        private init(automatic: Bool) {
            self.automatic = automatic
        }

        /// Only when the test advances it: `advance(by:)`, `clock.advance`, `run()` (the default).
        public static let manually = Advancing(automatic: false)

        /// Also by itself: whenever the body waits and nothing is due at the current virtual
        /// time, to the earliest pending due time, until the body returns.
        public static let automatically = Advancing(automatic: true)
    }

    /// ``withCapturedTasks(isolation:_:)``, with time moving as `advancing` says. The existing
    /// calls compile and behave as before (``Advancing/manually``).
    ///
    /// ```swift
    /// let scheduler = TestScheduler()
    /// let start = scheduler.clock.now
    /// let value = try await scheduler.withCapturedTasks(advancing: .automatically) {
    ///     try await fetchWithRetry(attempts: 4)   // fails 3 times, sleeping 1, 2, 4 s between
    /// }
    /// #expect(value == 42)
    /// #expect(start.duration(to: scheduler.clock.now) == .seconds(7))
    /// ```
    ///
    /// With ``Advancing/automatically`` the body reads like production code, as with
    /// kotlinx-coroutines-test's `runTest` or Tokio's paused clock. Whenever the world in
    /// virtual time is idle, time jumps to the earliest pending due time and what is due then
    /// runs, until the body returns. Idle means: nothing is due at the current virtual time;
    /// the caller's actor (if it is not the main actor) has had a turn to run what captured
    /// work queued on it; and if only yields are due (tasks looping on `Task.yield()`), they
    /// have had 16 rounds at this time. Everything a capture runs runs on the driving thread,
    /// one job at a time, so for code wholly in virtual time (its
    /// tasks, their sleeps on ``clock`` or on a real clock, actors they call while those are
    /// free) idle is decided by the world's own order, never by timing: the same test gives the
    /// same trace every run, and ``now`` afterwards tells the virtual time spent.
    ///
    /// - **Dispatch work of the world holds time.** In a test binary that links
    ///   SchedulersTestSupport (Linux), a block that world code submits to a Dispatch queue
    ///   other than the main queue is in flight until it has run, and time does not move
    ///   meanwhile (WorldDispatchWork.swift): its answer arrives at the time it was asked for.
    /// - **What does not hold time back.** Work waiting on the outside world (a real network
    ///   client, I/O, an actor busy with work outside the capture) is not known to the
    ///   scheduler: while it is on its way, time moves on if anything is pending, as in Tokio
    ///   and kotlinx-coroutines-test. When nothing is pending the body waits for it, and its
    ///   answer is queued at the current virtual time. Give such code a stub that completes on
    ///   the scheduler (`try await clock.sleep(for: latency)`, then answer) to make it exact.
    /// - **Time that never ends.** A body that waits for what no time brings while time moves
    ///   on without end (a repeating action, a polling loop nobody stops) is reported once,
    ///   after ten thousand advances in a row that ran none of its jobs (a count, not a
    ///   time, so the verdict is the same at any load); its task is then cancelled (its sleeps
    ///   throw, a stream it iterates ends) and time moves no more by itself, so the test ends.
    /// - **A body that can never go on** (nothing due, nothing pending, no Dispatch work of the
    ///   world in flight) is reported after ten ``waitWarningDelay``s of real time, in case the
    ///   outside world answers first, and its task is cancelled, in both modes.
    /// - **The driver lets go of its thread** every 64 advances, as a waiting task does, so
    ///   other tests, Dispatch workers and the framework's `.timeLimit` run beside it.
    /// - **Manual drives still work** inside: `await clock.advance(by:)` moves time as usual.
    ///
    /// - Parameters:
    ///   - advancing: How time moves while the body waits.
    ///   - isolation: The actor `body` runs on: the caller's.
    ///   - body: The code whose tasks should run in virtual time.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws.
    public func withCapturedTasks<R>(
        advancing: Advancing, isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> R
    ) async rethrows -> R {
        let method = advancing == .automatically ? "withCapturedTasks(advancing: .automatically)" : "withCapturedTasks(isolation:_:)"
        return try await capture(advancing: advancing, method: method, isolation: isolation, body)
    }

    /// How many rounds tasks that only yield get at one virtual time before an automatic
    /// advance moves on: a loop of `Task.yield()` that waits for a later time lets time move,
    /// while a few yields in a row (swift-concurrency-extras' `megaYield`) still finish first.
    static var automaticAdvanceYieldRounds: Int { 16 }

    /// Whether the world is idle at `now` (see ``withCapturedTasks(advancing:isolation:_:)``);
    /// if so, the earliest pending due time to move to.
    func idleUntil(
        _ now: VirtualTime, body: CapturedBody, _ advancing: inout AutomaticAdvance,
        isolation: isolated (any Actor)?
    ) async -> VirtualTime? {
        // Dispatch work of the world in flight holds time (WorldDispatchWork.swift).
        guard dispatchHold(core.worldClockPointer) == nil else { return nil }
        guard var pending = pendingState(), pending.earliest.map({ $0 > now }) ?? true else { return nil }
        if pending.holdsYields {
            // Only yields left at this time: a round each.
            advancing.yieldRounds += 1
            guard advancing.yieldRounds > Self.automaticAdvanceYieldRounds else { return nil }
        }
        // Captured work queued on the caller's actor (not the main actor: its captured work
        // is queued here) runs when the driver lets go of it: one turn, then look again.
        if let isolation, ObjectIdentifier(isolation) != ObjectIdentifier(MainActor.shared) {
            await Task.yield()
            if body.isFinished { return nil }
            guard let again = pendingState(), again.earliest.map({ $0 > now }) ?? true else { return nil }
            pending = again
        }
        return pending.earliest
    }

    /// The earliest live action's time (nil if none), and whether yields are held.
    private func pendingState() -> (earliest: VirtualTime?, holdsYields: Bool)? {
        let earliest = core.earliestPendingTime()
        let holdsYields = core.state.withLock { !$0.heldYields.isEmpty }
        if earliest == nil && !holdsYields { return nil }
        return (earliest, holdsYields)
    }

    /// How many automatic advances in a row may run none of the body's jobs before the capture
    /// is a runaway: time moving without end while the body waits for what no time brings.
    /// Counted, not timed, so the verdict is the same at any load. A correct body that waits
    /// on work sleeping this many times in a row without it (ten thousand sleeps) is rare; a
    /// repeating action or a polling loop nobody stops gets there in about a second.
    static var runawayAdvances: Int { 10_000 }

    /// How many automatic advances run between two turns the driver gives its thread: the
    /// driver suspends the way any waiting task does, so that other tests, Dispatch workers
    /// and the framework's `.timeLimit` get the thread, on one core too.
    static var advancesPerTurn: Int { 64 }

    /// Runs the earliest pending action at its time `next`, moving ``now`` there; the
    /// yields held now are released at `next`, after it. Reports a runaway, and cancels its
    /// body (``runawayAdvances``).
    func advance(
        to next: VirtualTime, _ advancing: inout AutomaticAdvance, body: CapturedBody, isolation: isolated (any Actor)?
    ) async {
        // Released at this time already (or not to be): not again before the jump (as if the
        // rounds of nothing but yields had run out here).
        var moment = VirtualTimeCore.DriveMoment(time: core.now, yieldOnlyRounds: VirtualTimeCore.yieldOnlyRoundLimit)
        _ = await driveOne(through: next, &moment, isolation: isolation)
        advancing.yieldRounds = 0
        if advancing.countMove(bodyProgress: arrivals.bodyProgress), !body.isFinished {
            advancing.stopped = true
            reportRunaway(advancing.advances, of: "the body of withCapturedTasks(advancing: .automatically)", called: "the body")
            body.cancel()
        }
        if advancing.advances % Self.advancesPerTurn == 0 { await Task.yield() }
    }

    /// - Parameters:
    ///   - subject: What waits: the body of a capture, or XCTest's test method.
    ///   - name: What the rest of the message calls it.
    private func reportRunaway(_ advances: Int, of subject: String, called name: String) {
        let pending = core.state.withLock { ($0.liveCount, $0.slots.liveRepeatingCount) }
        Warning.emit("""
            \(subject) on \(self) waits while virtual \
            time moves on without end: it moved by itself \(Self.runawayAdvances) times in a row \
            without \(name) going on (\(advances) in all), to \
            \(Clock.Instant(time: core.now).date.timeIntervalSinceReferenceDate) s after 2001-01-01 \
            (\(pending.0) action(s) pending, \(pending.1) of them repeating), so its task is \
            cancelled and time moves no more by itself. The body waits for something that time \
            does not bring while work keeps time moving: end the repeating work (dispose the \
            action, cancel or stop the task, break out of the timer's loop), or await what it \
            produces. (Once per capture.)
            """, about: self)
    }
}

/// What an automatically advancing capture keeps between steps.
struct AutomaticAdvance {
    /// Rounds of only yields at the current virtual time.
    var yieldRounds = 0
    /// Automatic advances so far.
    var advances = 0
    /// The body's progress (``OutsideArrivals/bodyProgress``) at the last advance.
    var lastProgress: UInt64 = 0
    /// Advances in a row that ran none of the body's jobs.
    var withoutProgress = 0
    /// A runaway was reported and its body cancelled: time moves no more by itself.
    var stopped = false

    /// Counts a move of time, given the body's progress after it
    /// (``OutsideArrivals/bodyProgress``).
    /// - Returns: whether the moves in a row without progress reached
    ///   ``TestScheduler/runawayAdvances``: a runaway.
    mutating func countMove(bodyProgress progress: UInt64) -> Bool {
        advances += 1
        if progress != lastProgress {
            lastProgress = progress
            withoutProgress = 0
        } else {
            withoutProgress += 1
        }
        return withoutProgress >= TestScheduler.runawayAdvances
    }
}

extension TestScheduler {
    /// One turn of automatic advance for a synchronous capture whose body waits in a run loop
    /// (SchedulersTestSupport's XCTest base class, while XCTest waits for an `async` test
    /// method or an expectation): runs what is due now, and what that makes due now, as a
    /// drive does; if nothing but that ran, and no Dispatch work of the world holds time,
    /// moves to the earliest pending due time and runs the first action due there. Call it on
    /// the capture's thread, from the run loop the body spins.
    ///
    /// One move of time a turn, so that the waiter sees its expectation fulfilled before time
    /// moves past it. Not a drive the test asked for (no drive epoch of its own): like an
    /// automatic advance, only the moves of time count for work arriving from outside.
    ///
    /// - Returns: whether anything ran: call it again at once; false when the world is idle.
    package func advanceAutomaticallyOnce(_ turns: RunLoopAdvancing) -> Bool {
        // A new body (the method's task after an `async` setUp's, or tearDown's after the
        // method's) starts with counts of its own.
        if arrivals.promoteTestTask() { turns.restart() }
        var ran = false
        var moved = false
        driver.drive {
            var moment = VirtualTimeCore.DriveMoment()
            while runNext(through: core.now, &moment) { ran = true }
            // Yields that ran out of rounds at this time (a loop waiting for a later time) are
            // waiting for time, like an idle world.
            let onlyYields = moment.yieldOnlyRounds >= VirtualTimeCore.yieldOnlyRoundLimit
            guard !turns.advancing.stopped, !ran || onlyYields, let next = core.earliestPendingTime() else { return }
            var jump = VirtualTimeCore.DriveMoment(time: core.now, yieldOnlyRounds: VirtualTimeCore.yieldOnlyRoundLimit)
            moved = true
            if runNext(through: next, &jump) { ran = true }
        }
        if moved { countMove(turns) }
        noteIdleness(turns, ran: ran)
        return ran
    }

    /// Counts a move of time, and stops a runaway (``runawayAdvances`` moves in a row that ran
    /// none of the test method's jobs while it waits): reported, its task cancelled, and time
    /// moves no more by itself.
    private func countMove(_ turns: RunLoopAdvancing) {
        guard turns.advancing.countMove(bodyProgress: arrivals.bodyProgress), arrivals.hasTestTask else { return }
        turns.advancing.stopped = true
        reportRunaway(turns.advancing.advances, of: "the test method", called: "the method")
        cancelTestTaskInADrive()
    }

    /// Cancels the test method's task from an action, run at the next turn: its wake-up (a
    /// stream's end, a sleep's throw) is then queued from inside a drive, as the world's own
    /// work, not as work arriving from outside (a report of its own).
    private func cancelTestTaskInADrive() {
        let arrivals = arrivals
        core.enqueueWithoutDisposable(action: { arrivals.cancelTestTask() }) { now in now }
    }

    /// Reports a test method that can never go on (as CapturedBodyDriver.swift does a body), once its
    /// world has been idle for ten ``waitWarningDelay``s of real time in a row, and cancels its
    /// task, so that XCTest, which has no time limit of its own on Linux, does not wait for it
    /// for ever.
    private func noteIdleness(_ turns: RunLoopAdvancing, ran: Bool) {
        let idle = !ran && arrivals.hasTestTask && core.earliestPendingTime() == nil
            && core.state.withLock({ $0.heldYields.isEmpty }) && dispatchHold(core.worldClockPointer) == nil
        guard idle else {
            turns.idleSince = nil
            return
        }
        // The package's own real time, on a thread whose readings may be virtual.
        let now = withRealReadings { DispatchTime.now().uptimeNanoseconds }
        guard let since = turns.idleSince else {
            turns.idleSince = now
            return
        }
        let limit = UInt64(max(0, waitWarningNanoseconds.load(ordering: .relaxed))) * UInt64(Self.cannotGoOnDelays)
        guard now - since >= limit, core.warnOnce(.bodyCannotGoOn) else { return }
        // On XCTest's thread, in the running test: given at once.
        Warning.emit("""
            the test method on \(self) can never go on: it has waited \(waitWarningDelay * Self.cannotGoOnDelays) \
            of real time with nothing due, nothing pending and no Dispatch work of its world in \
            flight, so its task is cancelled. Finish what it awaits (an AsyncStream's continuation, \
            a CheckedContinuation, the task it waits for), or, if it waits for the real world (a \
            network request), raise scheduler.waitWarningDelay. (Once per scheduler.)
            """, about: self)
        cancelTestTaskInADrive()
    }
}

/// What the automatic advance of a test method's run loop keeps between its turns
/// (SchedulersTestSupport's `VirtualTimeTestCase`). Touched on the capture's thread only.
package final class RunLoopAdvancing: @unchecked Sendable {
    // `@unchecked`: the run loop's timer, which holds it, fires on the capture's thread only.
    var advancing = AutomaticAdvance()
    /// Real time (uptime nanoseconds) of the first of the idle turns in a row; nil after a
    /// turn that was not idle.
    var idleSince: UInt64?

    package init() {}

    func restart() {
        advancing = AutomaticAdvance()
        idleSince = nil
    }
}

extension TestScheduler {
    /// Runs `body`, an XCTest test method inside a synchronous capture of this scheduler, with
    /// the task XCTest waits for (the last one the method's own code, or XCTest, started before
    /// a turn of the run loop: for an `async` method, the task XCTest runs it in) taken as the
    /// capture's body: its sleeps then let time pass as a body's do (CapturedBodyDriver.swift,
    /// ``wakeUpOfBody(_:)``), so that at its deadline it sees everything due by then.
    /// SchedulersTestSupport's `VirtualTimeTestCase`.
    package func runningTestMethod<R>(_ body: () throws -> R) rethrows -> R {
        arrivals.wantTestTasks()
        defer { arrivals.endTestTasks() }
        return try body()
    }
}
