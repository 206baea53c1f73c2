import Foundation

/// Stops the program for a programming error, printing `message` in every build configuration.
///
/// `precondition` drops its message in optimised builds; the contract promises that bad input
/// stops with a message naming the method and the value, so these checks use `fatalError`.
@inline(never)
func badInput(_ message: String, file: StaticString = #file, line: UInt = #line) -> Never {
    fatalError(message, file: file, line: line)
}

/// Checks a repeating schedule's arguments the same way on every scheduler, so that bad input
/// stops at the call with a message naming the method and the value, instead of trapping later
/// inside Dispatch (which traps on negative, NaN or huge intervals and busy-fires at zero).
enum RepeatPreconditions {
    static let method = "schedule(after:repeatingEvery:withLeeway:_:)"

    static func check(interval: TimeInterval, leeway: TimeInterval, method: String = method) {
        if !(interval.isFinite && interval > 0) {
            badInput("\(method): the interval must be finite and greater than zero, got \(interval)")
        }
        if leeway.isNaN || leeway < 0 {
            badInput("\(method): the leeway must be zero or more, got \(leeway)")
        }
    }

    /// Seconds as whole nanoseconds, saturating instead of overflowing (10 years is fine; 1e300 s
    /// becomes about 146 years, which is as good as never).
    static func nanoseconds(_ seconds: TimeInterval) -> Int {
        let nanoseconds = seconds * 1e9
        if nanoseconds >= Double(maximumNanoseconds) { return maximumNanoseconds }
        return max(0, Int(nanoseconds))
    }

    /// The longest interval handed to Dispatch: well inside its limits (`Int64.max` traps there).
    static let maximumNanoseconds = Int(Int64.max / 2)
}

extension RepeatPreconditions {
    static let durationMethod = "schedule(after:repeatingEvery:leeway:_:)"

    /// The `Duration` counterpart of ``check(interval:leeway:method:)``. A `Duration` is always
    /// finite, so what is left to reject is a zero or negative interval and a negative leeway.
    static func check(interval: Duration, leeway: Duration, method: String = durationMethod) {
        if interval <= .zero { badInput("\(method): the interval must be greater than zero, got \(interval)") }
        if leeway < .zero { badInput("\(method): the leeway must be zero or more, got \(leeway)") }
    }
}
