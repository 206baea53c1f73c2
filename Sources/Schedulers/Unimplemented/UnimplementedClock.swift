/// The clock of an ``UnimplementedScheduler``: a sleep on it is a use of the scheduler (reported
/// as a failure of the running test) and throws `CancellationError` at once, without waiting.
/// Its `now` stands still and reading it reports nothing.
struct UnimplementedClock: Clock, Sendable {
    /// A moment of an ``UnimplementedClock``: an offset from the clock's fixed `now`.
    struct Instant: InstantProtocol, Sendable {
        let offset: Duration

        func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        func duration(to other: Instant) -> Duration { other.offset - offset }
        static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    let scheduler: UnimplementedScheduler

    var now: Instant { Instant(offset: .zero) }

    var minimumResolution: Duration { .zero }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        _ = scheduler.reportUse("clock.sleep")
        throw CancellationError()
    }
}
