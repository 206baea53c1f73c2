import CurrentSchedulerSlot
@_spi(SchedulersInternal) import Disposables
import Foundation

extension TestScheduler.Clock {
    /// Drives the scheduler like ``TestScheduler/advance(by:)-(Duration)`` and, between its
    /// actions, lets the caller's actor run what became ready for it: when it returns,
    /// everything due by then has run, on every actor, at its virtual time.
    ///
    /// The swift-clocks habit: `await clock.advance(by: .milliseconds(300))`.
    ///
    /// - Main-actor jobs the scheduler captured (``TestScheduler/withCapturedTasks(isolation:_:)``)
    ///   run on the main actor at their virtual time, in their place among actions: inline when
    ///   the caller is on the main actor, else after a hop to it.
    /// - A caller on another actor yields it after each action, so that work a captured task
    ///   queued on that actor runs before the next action.
    /// - Runs on the caller's actor; the scheduler's actions run on the calling thread, as with
    ///   the synchronous form. A scheduler that no longer exists has nothing to run.
    ///
    /// - Parameters:
    ///   - duration: How far to move virtual time; zero or negative runs what is due now.
    ///   - isolation: The caller's actor.
    public func advance(by duration: Duration, isolation: isolated (any Actor)? = #isolation) async {
        guard let scheduler = reference.scheduler as? TestScheduler else { return }
        // Read and moved as one exact time, as the synchronous `advance(by: Duration)` does.
        await scheduler.drive(through: scheduler.core.now + VirtualTime(duration), isolation: isolation)
    }

    /// Drives the scheduler to `deadline`, as ``advance(by:isolation:)`` does. A deadline
    /// before ``now`` runs what is due now.
    ///
    /// - Parameters:
    ///   - deadline: The virtual instant to reach.
    ///   - isolation: The caller's actor.
    public func advance(to deadline: Instant, isolation: isolated (any Actor)? = #isolation) async {
        guard let scheduler = reference.scheduler as? TestScheduler else { return }
        await scheduler.drive(through: scheduler.resolve(deadline, against: scheduler.core.now), isolation: isolation)
    }

    /// Drives the scheduler, as ``advance(by:isolation:)`` does, until nothing is pending,
    /// moving virtual time to each action's date in turn.
    ///
    /// A live repeating action would keep it going for ever: once only repeating actions are
    /// left, it runs what is due at the current time and stops there, with a message saying so
    /// (dispose them, or advance by a duration instead). A ``Scheduler/timer(every:leeway:)``
    /// sequence is not such an action: it has a tick pending only while its consumer waits for
    /// one, so `run()` returns once the consumer stops.
    ///
    /// - Parameter isolation: The caller's actor.
    public func run(isolation: isolated (any Actor)? = #isolation) async {
        guard let scheduler = reference.scheduler as? TestScheduler else { return }
        await scheduler.driveUntilIdle(isolation: isolation)
    }
}

extension TestScheduler {
    /// The asynchronous drive behind `Clock.advance`: ``advance(to:)``, one action at a time,
    /// with main-actor jobs run on the main actor and the caller's actor yielded between actions.
    func drive(through target: VirtualTime, isolation: isolated (any Actor)?) async {
        emitPendingReport()
        await arrivals.explicitDrive {
            core.advanceDriveEpoch()
            await driveWithoutCounting(through: target, isolation: isolation)
        }
    }

    private func driveWithoutCounting(through target: VirtualTime, isolation: isolated (any Actor)?) async {
        // Never backwards, as `advance(to:)`.
        let limit = max(target, core.now)
        var moment = VirtualTimeCore.DriveMoment()
        repeat {
            while await driveOne(through: limit, &moment, isolation: isolation) {}
        } while !core.finishDrive(through: limit)
    }

    /// The drive behind `Clock.run()`.
    func driveUntilIdle(isolation: isolated (any Actor)?) async {
        emitPendingReport()
        await arrivals.explicitDrive {
            core.advanceDriveEpoch()
            await driveUntilIdleWithoutCounting(isolation: isolation)
        }
    }

    private func driveUntilIdleWithoutCounting(isolation: isolated (any Actor)?) async {
        var moment = VirtualTimeCore.DriveMoment()
        while true {
            let (pending, repeating) = core.state.withLock { ($0.liveCount, $0.slots.liveRepeatingCount) }
            if pending == 0 { return }
            if pending == repeating {
                // What is due now runs first, a repeating action due now included (once: it
                // comes back an interval later); then, if only repeating actions are left, stop.
                let now = core.now
                while await driveOne(through: now, &moment, isolation: isolation) {}
                let (left, repeatingLeft) = core.state.withLock { ($0.liveCount, $0.slots.liveRepeatingCount) }
                if left != repeatingLeft { continue }
                if core.warnOnce(.runStoppedAtRepeatingActions) {
                    Warning.emit("""
                        TestScheduler.Clock.run() stopped with \(repeating) live repeating action(s) \
                        pending on \(self), since running until nothing is pending would never end; \
                        dispose them first, or use advance(by:). (Once per scheduler.)
                        """, about: self, kind: .help)
                }
                return
            }
            // Only held yields left, which this drive no longer releases at this moment (a task
            // yielding until a later time): nothing runs until an advance moves time.
            if await !driveOne(through: nil, &moment, isolation: isolation) { return }
        }
    }

    /// Runs the next action due by `limit` (any, if nil), then whatever main-actor jobs it left
    /// for the main actor, then yields the caller's actor if that is another actor.
    /// - Returns: whether an action ran.
    func driveOne(
        through limit: VirtualTime?, _ moment: inout VirtualTimeCore.DriveMoment, isolation: isolated (any Actor)?
    ) async -> Bool {
        let drive = AsyncDrive()
        var next = NextRun.idle
        driver.drive { next = drive.run { runNextUnlessHeld(through: limit, &moment) } }
        if case .held(let clock, let work) = next {
            // Dispatch work of the world in flight, nothing due now: wait for it without holding
            // the thread, then look again (WorldDispatchWork.swift).
            await waitForDispatchWork(clock, work)
            return true
        }
        let ran = if case .ran = next { true } else { false }
        let deferred = drive.takeDeferred()
        if !deferred.isEmpty {
            // The test's own hop (its task is not captured, so the lookup is not answered
            // with the stand-in).
            await MainActor.run { [self] in
                // As every drive does: the jobs these start (a hop to nonisolated code, a
                // `Task {}`) are captured only while the hooks are installed.
                let tenures = driver.holdsCaptureHooks.load(ordering: .relaxed) ? CaptureHooks.acquire() : nil
                defer { tenures?.release() }
                for item in deferred {
                    runInWorld { item.standIn.runDeferred(item.job) }
                }
            }
        }
        if ran, let isolation, ObjectIdentifier(isolation) != ObjectIdentifier(MainActor.shared) {
            await Task.yield()
        }
        return ran
    }

    /// Parks the driver until the world's Dispatch work in flight on `clock` has finished, work
    /// is due now, or the wait warning's delay has passed (then reports and abandons the work).
    private func waitForDispatchWork(_ clock: UnsafeMutablePointer<schedulers_world_clock>, _ work: WorldDispatchWork) async {
        let delay = waitWarningDelay
        let start = withRealReadings { ContinuousClock.now }
        let generation = parkGeneration.add(1, ordering: .relaxed).newValue
        withRealReadings {
            DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(Self.nanoseconds(delay)))) { [weak self] in
                guard let self, self.parkGeneration.load(ordering: .relaxed) == generation else { return }
                self.core.unpark()
            }
        }
        await withCheckedContinuation { (driver: CheckedContinuation<Void, Never>) in
            if !core.park(driver, unless: { !work.isHolding(clock) }) { driver.resume() }
        }
        parkGeneration.add(1, ordering: .relaxed)
        if work.isHolding(clock), withRealReadings({ ContinuousClock.now - start }) >= delay { work.abandon(clock) }
    }
}
