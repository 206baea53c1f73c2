@_spi(SchedulersInternal) import Disposables
import Foundation
import Synchronization

extension Scheduler {
    /// The dates of a repeating timer on a scheduler, as returned by
    /// ``Scheduler/timer(every:leeway:)``.
    ///
    /// The sequence is only a description (scheduler, interval, leeway, and when it was made);
    /// each iterator runs a timer of its own:
    /// - **Start.** The timer is scheduled when the iterator is made (`for await` makes it as the
    ///   loop starts); on a ``TestScheduler``, when the consumer first waits (see below). Its first tick is due one interval after the call to
    ///   ``Scheduler/timer(every:leeway:)``, or at once if the loop starts later than that;
    ///   later ticks come every interval after the one before. A sequence that is never
    ///   iterated schedules nothing.
    /// - **Stop.** The timer is disposed, releasing everything it holds, as soon as the loop
    ///   consuming it ends (`break`, `return`, a thrown error: the iterator is dropped), the
    ///   consuming task is cancelled (`next()` then returns nil), or the iterator is otherwise
    ///   released, even while the sequence value is still referenced. Until then it runs,
    ///   whether or not the scheduler object is retained.
    /// - **End.** The sequence never ends on its own. It ends (after the date it may have
    ///   buffered) if the scheduler releases the timer without it being disposed, as a
    ///   ``TestScheduler`` does when it is deinitialised.
    /// - **On a ``TestScheduler``**, a tick is scheduled only while the consumer waits for it in
    ///   `next()`, at the time a repeating timer would have it (one interval after the last, or
    ///   the latest one due if the consumer asks late): so once its consumer stops, the timer has
    ///   nothing pending, and ``TestScheduler/Clock/run(isolation:)`` returns after the ticks
    ///   that were taken. Consume it in a task that runs on the scheduler (preferring it, or
    ///   captured by ``TestScheduler/withCapturedTasks(_:)``); `next()` called from anywhere
    ///   else makes the scheduler print its once-per-scheduler warning (see
    ///   ``Scheduler/sleep(for:)``).
    public struct TimerSequence: AsyncSequence, Sendable {
        public typealias Element = Date
        public typealias Failure = Never

        /// Weak for a ``TestScheduler``: a sequence (like anything pending) never keeps it alive.
        private let scheduler: SchedulerReference
        private let interval: Duration
        private let leeway: Duration
        /// When the sequence was made, in the scheduler's time: the first tick is due one
        /// interval later.
        private let origin: TimerOrigin

        init(scheduler: Scheduler, interval: Duration, leeway: Duration) {
            let target = scheduler.asyncTarget
            self.scheduler = SchedulerReference(target)
            self.interval = interval
            self.leeway = leeway
            origin = TimerOrigin(scheduler: target)
        }

        /// Starts a timer of its own, owned by the returned iterator.
        ///
        /// - Returns: An iterator whose timer stops when the iterator is released. If the
        ///   scheduler is a ``TestScheduler`` that no longer exists, the iterator ends at once.
        public func makeAsyncIterator() -> Iterator {
            guard let scheduler = scheduler.scheduler else {
                let ticks = TimerTicks(scheduler: self.scheduler, demand: nil)
                ticks.schedulerReleasedTheTimer()
                return Iterator(owner: TimerIteratorOwner(ticks: ticks))
            }
            if case .virtual(let origin) = origin, let test = scheduler as? TestScheduler {
                // Virtual time: a tick at a time, as the consumer asks (VirtualTimerDemand).
                let demand = VirtualTimerDemand(scheduler: test, origin: origin, interval: VirtualTime(interval))
                return Iterator(owner: TimerIteratorOwner(ticks: TimerTicks(scheduler: self.scheduler, demand: demand)))
            }
            let ticks = TimerTicks(scheduler: self.scheduler, demand: nil)
            let sink = TimerTickSink(ticks: ticks)
            ticks.own(origin.schedule(on: scheduler, interval: interval, leeway: leeway) { sink.tick() })
            return Iterator(owner: TimerIteratorOwner(ticks: ticks))
        }

        /// Waits for a timer's ticks. Dropping it stops the timer.
        public struct Iterator: AsyncIteratorProtocol {
            /// A tick's date, as ``Scheduler/TimerSequence`` yields it.
            public typealias Element = Date
            public typealias Failure = Never

            private let owner: TimerIteratorOwner

            init(owner: TimerIteratorOwner) {
                self.owner = owner
            }

            /// The next tick's date (the latest one if several came since the last call).
            ///
            /// - Returns: The date, or nil once the consuming task is cancelled (which stops the
            ///   timer) or the scheduler released the timer.
            public mutating func next() async -> Date? {
                await owner.ticks.next()
            }

            /// The next tick's date, waiting in the caller's isolation.
            ///
            /// - Parameter actor: The caller's isolation, which the wait stays in.
            /// - Returns: As ``next()``.
            public mutating func next(isolation actor: isolated (any Actor)?) async -> Date? {
                await owner.ticks.next(isolation: actor)
            }
        }
    }
}

/// When a timer sequence was made, in the terms its scheduler schedules in.
private enum TimerOrigin: Sendable {
    /// A ``TestScheduler``'s exact virtual time: the first tick is due at that time plus the
    /// interval, exactly as `schedule(after: Duration)` would have counted it then.
    case virtual(VirtualTime)
    /// The monotonic clock the `Duration` forms use on other schedulers.
    case monotonic(DispatchTime)

    init(scheduler: Scheduler) {
        if let test = scheduler as? TestScheduler {
            self = .virtual(test.core.now)
        } else {
            self = .monotonic(.now())
        }
    }

    func schedule(
        on scheduler: Scheduler, interval: Duration, leeway: Duration, _ tick: @escaping @Sendable () -> Void
    ) -> (any Disposable)? {
        switch self {
        case .virtual:
            // A TestScheduler's timer is demand-driven (VirtualTimerDemand), never scheduled here.
            return nil
        case .monotonic(let origin):
            let elapsed = Duration.nanoseconds(
                Int64(clamping: DispatchTime.now().uptimeNanoseconds &- origin.uptimeNanoseconds))
            let delay = max(.zero, interval - elapsed)
            return scheduler.schedule(after: delay, repeatingEvery: interval, leeway: leeway, tick)
        }
    }
}

/// Releases the iteration's timer when the iterator is released.
final class TimerIteratorOwner: Sendable {
    let ticks: TimerTicks

    init(ticks: TimerTicks) {
        self.ticks = ticks
    }

    deinit {
        ticks.finish()
    }
}

/// What a timer's repeating action holds. Released with the action (on disposal, or when a
/// ``TestScheduler`` is deinitialised with the timer pending), it ends the iteration, so a
/// consumer is never left waiting for ticks that can no longer come.
private final class TimerTickSink: Sendable {
    let ticks: TimerTicks

    init(ticks: TimerTicks) {
        self.ticks = ticks
    }

    func tick() {
        ticks.tick(Scheduler.currentDate)
    }

    deinit {
        ticks.schedulerReleasedTheTimer()
    }
}

/// One iteration's state: the newest undelivered date, the waiting consumer, the timer.
/// Decisions are made under the lock; continuations are resumed and the timer disposed after.
final class TimerTicks: Sendable {
    private struct State {
        var latest: Date?
        var waiter: UnsafeContinuation<Date?, Never>?
        var timer: (any Disposable)?
        /// No more ticks will come: the consumer is done, or the scheduler released the timer.
        var isOver = false
    }

    private let state = Lock(State())
    let scheduler: SchedulerReference
    /// On a ``TestScheduler``: schedules each tick when the consumer waits for it.
    private let demand: VirtualTimerDemand?

    init(scheduler: SchedulerReference, demand: VirtualTimerDemand?) {
        self.scheduler = scheduler
        self.demand = demand
    }

    func own(_ timer: (any Disposable)?) {
        let stale = state.withLock { state -> (any Disposable)? in
            if state.isOver { return timer }
            state.timer = timer
            return nil
        }
        stale?.dispose()
    }

    /// - Returns: whether it resumed a waiting consumer.
    @discardableResult
    func tick(_ date: Date) -> Bool {
        let waiter = state.withLock { state -> UnsafeContinuation<Date?, Never>? in
            if state.isOver { return nil }
            if let waiter = state.waiter.take() { return waiter }
            state.latest = date
            return nil
        }
        waiter?.resume(returning: date)
        return waiter != nil
    }

    func next(isolation actor: isolated (any Actor)? = #isolation) async -> Date? {
        var adoption: AdoptedWakeUp?
        if let test = scheduler.scheduler as? TestScheduler,
            DetachedSleepWarning.check(test, isolation: actor, call: "timer(every:leeway:)'s next()")
        {
            adoption = AdoptedWakeUp(scheduler: test)
        }
        let date = await waitForTick(adoption)
        // Woken in a drive before it awaited, the task went on where it was (Sleeper.swift).
        if let adoption, date != nil { await adoption.rejoinIfLeft() }
        return date
    }

    private func waitForTick(_ adoption: AdoptedWakeUp?, isolation actor: isolated (any Actor)? = #isolation) async -> Date? {
        if Task.isCancelled {
            finish()
            return nil
        }
        return await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: UnsafeContinuation<Date?, Never>) in
                let ready = state.withLock { state -> Date?? in
                    if let latest = state.latest.take() { return .some(latest) }
                    if state.isOver { return .some(nil) }
                    state.waiter = continuation
                    return nil
                }
                if let ready {
                    continuation.resume(returning: ready)
                } else if let demand {
                    demand.request(for: self, adoption: adoption)
                }
            }
        } onCancel: {
            finish()
        }
    }

    /// The consumer is done (cancelled, or the iterator released): dispose the timer, end the wait.
    func finish() {
        let (timer, waiter) = state.withLock { state in
            state.isOver = true
            state.latest = nil
            return (state.timer.take(), state.waiter.take())
        }
        timer?.dispose()
        demand?.cancel()
        waiter?.resume(returning: nil)
    }

    /// The scheduler dropped the timer: deliver what is buffered, then end.
    func schedulerReleasedTheTimer() {
        let waiter = state.withLock { state in
            state.isOver = true
            return state.waiter.take()
        }
        waiter?.resume(returning: nil)
    }
}

/// A ``TestScheduler`` timer's ticks, scheduled one at a time as its consumer asks for them.
///
/// A repeating action would keep the scheduler busy for ever, so `clock.run()` could never
/// tell a timer somebody consumes (`for await … in timer.prefix(10)`) from one nobody ends, and
/// refused both. Scheduled on demand, a timer has work pending only while its consumer waits in
/// `next()`: once the loop ends (`prefix(n)`, `break`, the task ends) nothing is pending, and
/// `run()` returns after the ticks that were taken.
///
/// The ticks keep the times a repeating timer has: tick k is due at `origin + k × interval`. A
/// consumer that asks late (it slept past several ticks) gets at once the latest tick due by
/// then, as a repeating timer's buffer would have held it.
final class VirtualTimerDemand: Sendable {
    private struct State {
        /// The due time of the last tick delivered (the origin before the first).
        var last: VirtualTime
        /// Whether a tick was delivered: the first one is due one interval after the origin, or
        /// at once if the consumer first asks later (as a repeating timer clamped to `now`).
        var hasTicked = false
        /// The scheduled tick, while the consumer waits.
        var pending: (any Disposable)?
        var isCancelled = false
    }

    private let scheduler: SchedulerReference
    private let interval: VirtualTime
    private let state: Lock<State>

    init(scheduler: TestScheduler, origin: VirtualTime, interval: VirtualTime) {
        self.scheduler = SchedulerReference(scheduler)
        self.interval = interval
        state = Lock(State(last: origin))
    }

    /// Schedules the next tick for `ticks`, whose consumer now waits, unless one is scheduled.
    ///
    /// - Parameter adoption: the consumer is a task the scheduler adopted: the tick's drive
    ///   runs it on (`AdoptedWakeUp`).
    func request(for ticks: TimerTicks, adoption: AdoptedWakeUp? = nil) {
        guard let test = scheduler.scheduler as? TestScheduler else {
            ticks.schedulerReleasedTheTimer()
            return
        }
        let interval = interval
        let now = test.core.now
        let due = state.withLock { state -> VirtualTime? in
            guard !state.isCancelled, state.pending == nil else { return nil }
            guard state.hasTicked else { return max(state.last + interval, now) }
            return Self.nextDue(after: state.last, every: interval, now: now)
        }
        guard let due else { return }
        // Released without running (the scheduler's deinit): ends the iteration.
        let sink = VirtualTickSink(ticks: ticks)
        let isLate = due < now
        let tick = test.schedule(at: due) { [self] in
            state.withLock { state in
                state.last = due
                state.hasTicked = true
                state.pending = nil
            }
            // On time, the scheduler's date (which reads back a date a test gave); late, the
            // tick's own time, as a repeating timer's buffer would have held it.
            let date = isLate ? due.date : Scheduler.currentDate
            if let adoption { adoption.fire { sink.tick(at: date) } } else { sink.tick(at: date) }
        }
        let stale = state.withLock { state -> (any Disposable)? in
            if state.isCancelled { return tick }
            // Ran already (a drive on another thread): nothing to keep.
            if state.last == due { return nil }
            state.pending = tick
            return nil
        }
        stale?.dispose()
    }

    /// The consumer is done: the scheduled tick, if any, is disposed.
    func cancel() {
        let pending = state.withLock { state -> (any Disposable)? in
            state.isCancelled = true
            return state.pending.take()
        }
        pending?.dispose()
    }

    /// The due time of the tick to deliver after the one due at `last`: the next one, or, if
    /// several are due by `now`, the latest of them.
    private static func nextDue(after last: VirtualTime, every interval: VirtualTime, now: VirtualTime) -> VirtualTime {
        let next = last + interval
        guard next < now else { return next }
        if next.isExact, now.isExact, interval.isExact, interval.raw > 0 {
            let skipped = (now.raw - next.raw) / interval.raw
            return VirtualTime(raw: next.raw + skipped * interval.raw)
        }
        var latest = next
        while latest + interval <= now, latest + interval > latest { latest = latest + interval }
        return latest
    }
}

/// What one scheduled tick of a ``VirtualTimerDemand`` holds: released after it ran, it does
/// nothing more; released without running (the scheduler deinitialised with the tick pending),
/// it ends the iteration, so a consumer is never left waiting for a tick that cannot come.
private final class VirtualTickSink: Sendable {
    let ticks: TimerTicks
    private let ran = Atomic<Bool>(false)

    init(ticks: TimerTicks) {
        self.ticks = ticks
    }

    @discardableResult
    func tick(at date: Date) -> Bool {
        ran.store(true, ordering: .releasing)
        return ticks.tick(date)
    }

    deinit {
        if !ran.load(ordering: .acquiring) { ticks.schedulerReleasedTheTimer() }
    }
}
