import Foundation

extension Duration {
    /// This duration in seconds, as the `TimeInterval` the Date-based methods take: the `Double`
    /// nearest to it (correctly rounded), so `.milliseconds(300)` is the literal 0.3 and meets
    /// `schedule(afterDelay: 0.3)` on a scheduler that keeps `Double` time. (Multiplying the
    /// attoseconds by `1e-18`, which is not exact, made it 0.30000000000000004.)
    var timeInterval: TimeInterval {
        VirtualTime.seconds(attoseconds: attoseconds)
    }

    /// Whole nanoseconds for Dispatch, clamped to `0...RepeatPreconditions.maximumNanoseconds`:
    /// a negative duration means now, and an enormous one (`Duration` reaches 2.9e11 years)
    /// becomes about 146 years instead of overflowing the `Int` Dispatch takes. Added to
    /// `DispatchTime.now()`, that is past Dispatch's range, which saturates to
    /// `DispatchTime.distantFuture`: a deadline of "never" (`FunctionSubmissionTests`).
    var clampedNanoseconds: Int {
        let (seconds, attoseconds) = components
        if seconds < 0 || (seconds == 0 && attoseconds <= 0) { return 0 }
        let maximum = RepeatPreconditions.maximumNanoseconds
        if seconds >= Int64(maximum / 1_000_000_000) { return maximum }
        return Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
    }
}
