@_spi(SchedulersInternal) import Disposables
import Foundation

extension Scheduler {
    /// The dates of a repeating timer on a scheduler, as returned by
    /// ``Scheduler/timer(every:leeway:)``.
    ///
    /// The sequence is only a description (scheduler, interval, leeway, and when it was made);
    /// each iterator runs a timer of its own:
    /// - **Start.** The timer is scheduled when the iterator is made (`for await` makes it as the
    ///   loop starts). Its first tick is due one interval after the call to
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
    /// - **On a ``TestScheduler``**, consume it in a task that runs on the scheduler (preferring
    ///   it, or captured by ``TestScheduler/withCapturedTasks(_:)``); `next()` called from
    ///   anywhere else makes the scheduler print its once-per-scheduler warning (see
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
            let ticks = TimerTicks(scheduler: scheduler)
            if let scheduler = scheduler.scheduler {
                let sink = TimerTickSink(ticks: ticks)
                ticks.own(origin.schedule(on: scheduler, interval: interval, leeway: leeway) { sink.tick() })
            } else {
                ticks.schedulerReleasedTheTimer()
            }
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
    /// A ``TestScheduler``'s exact virtual time: the first tick is scheduled at that time plus
    /// the interval, exactly as `schedule(after: Duration)` would have counted it then.
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
        case .virtual(let origin):
            // Exact times: through `Date`s and seconds, a tick could miss an `advance` target.
            guard let test = scheduler as? TestScheduler else { return nil }
            let span = VirtualTime(interval)
            return test.schedule(at: origin + span, repeatingEvery: span, tick)
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

    init(scheduler: SchedulerReference) {
        self.scheduler = scheduler
    }

    func own(_ timer: (any Disposable)?) {
        let stale = state.withLock { state -> (any Disposable)? in
            if state.isOver { return timer }
            state.timer = timer
            return nil
        }
        stale?.dispose()
    }

    func tick(_ date: Date) {
        let waiter = state.withLock { state -> UnsafeContinuation<Date?, Never>? in
            if state.isOver { return nil }
            if let waiter = state.waiter.take() { return waiter }
            state.latest = date
            return nil
        }
        waiter?.resume(returning: date)
    }

    func next(isolation actor: isolated (any Actor)? = #isolation) async -> Date? {
        if let test = scheduler.scheduler as? TestScheduler {
            DetachedSleepWarning.check(test, call: "timer(every:leeway:)'s next()")
        }
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
                if let ready { continuation.resume(returning: ready) }
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
