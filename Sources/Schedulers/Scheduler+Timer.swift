import Foundation

extension Scheduler {
    /// A stream of dates: the first one `interval` after this call, then one every `interval`,
    /// measured like `schedule(after: Duration, repeatingEvery:)` (the monotonic clock on a queue
    /// scheduler, virtual time on a ``TestScheduler``).
    ///
    /// - Each element is the scheduler's current date when the tick runs: `Date()` on a queue
    ///   scheduler, the virtual ``TestScheduler/now`` on a test scheduler.
    /// - Ticks run on this scheduler as its current scheduler. A consumer that falls behind gets
    ///   the latest date only (the stream buffers one), like a Dispatch timer coalescing ticks;
    ///   a consumer on a ``TestScheduler`` executor keeps up with every tick.
    /// - Finishing the iteration (`break`, the consuming task cancelled) or dropping the stream
    ///   disposes the timer, which then releases everything it holds. Until then the timer runs,
    ///   whether or not the scheduler object is retained. If the scheduler drops the timer
///   without it being disposed (a ``TestScheduler`` deinitialised), the stream finishes.
    /// - The ``ImmediateScheduler`` cannot repeat; its timer runs on a background queue.
    ///
    /// - Parameters:
    ///   - interval: between ticks, the first one included; greater than zero.
    ///   - leeway: how late a tick may be, so the system can coalesce wake-ups; zero or more.
    /// - Returns: the ticks, as the scheduler's dates; iterate it once.
    /// - Precondition: `interval > .zero` and `leeway >= .zero` (the message names this method).
    public func timer(every interval: Duration, leeway: Duration = .zero) -> AsyncStream<Date> {
        RepeatPreconditions.check(interval: interval, leeway: leeway, method: "timer(every:leeway:)")
        let (stream, continuation) = AsyncStream.makeStream(of: Date.self, bufferingPolicy: .bufferingNewest(1))
        let ticks = TimerTicks(continuation: continuation)
        let timer = asyncTarget.schedule(after: interval, repeatingEvery: interval, leeway: leeway) {
            ticks.tick()
        }
        continuation.onTermination = { _ in timer?.dispose() }
        return stream
    }
}

/// What a timer's repeating action holds. Released with the action (on disposal, or when a
/// ``TestScheduler`` is deinitialised with the timer pending), it finishes the stream, so a
/// consumer is never left waiting for ticks that can no longer come.
private final class TimerTicks: Sendable {
    private let continuation: AsyncStream<Date>.Continuation

    init(continuation: AsyncStream<Date>.Continuation) {
        self.continuation = continuation
    }

    func tick() {
        continuation.yield(Scheduler.currentDate)
    }

    deinit {
        continuation.finish()
    }
}
