import Foundation

/// How a `Date` a test passes in becomes a moment of exact virtual time.
///
/// A `Date` is a `Double` of seconds since 2001: about 119 ns apart in 2026, 477 ns in 2100.
/// Virtual time is exact, so once ``TestScheduler/now`` is not a `Double` (any start from
/// `Date()`, or more than 104 days after 2001), `now.addingTimeInterval(x)` is rounded twice
/// (`now` to a `Date`, then the sum) and lands up to one spacing of `Double`s away from
/// `now + x`. Read as its own binary value, it then missed `advance(by: x)` about half the time.
///
/// So a date is read against the scheduler's exact `now` N, as the time it plausibly denotes,
/// N plus a whole number of microseconds, when one lies within one spacing of the offset:
/// 1. measured from the date `now` reads (N's own `Date`, or the date an action was scheduled
///    at or `advance(to:)` went to, which may be a spacing or more from N): a date made from it
///    by adding `x` is off by the one rounding of the sum, half a spacing; one made from an
///    earlier reading, by the roundings of both readings too;
/// 2. failing that, measured from N itself: a date made from N's own `Date` is off by at most
///    the two roundings, one spacing.
/// A window of two spacings is narrower than a microsecond for every date up to 2137 (2^32 s),
/// so it holds at most one whole number of microseconds. An offset of zero means N only for the very
/// date `now` reads: the next `Double` over is a later time, as written. Otherwise, as before,
/// the date means its own value (``VirtualTime/init(seconds:)``: a whole number of nanoseconds
/// written in decimal is that, else its binary value). Dates that mean N or earlier are due now.
///
/// Two readings of one date agree while `now` moves by whole microseconds between them: the
/// microsecond grid seen from N is the one seen from N plus whole microseconds.
extension VirtualTime {
    /// What `seconds` (a date's `timeIntervalSinceReferenceDate`, not NaN) denotes when the
    /// scheduler's time is `now` and ``TestScheduler/now`` reads `reading` there instead of
    /// `now`'s own date (nil: it reads that, computed only for a date near the grid); and whether the time's own `Date` is not the date,
    /// so that the scheduler must report the date there (``DateReadings``).
    static func resolving(
        seconds: Double, against now: VirtualTime, reading: Double?
    ) -> (time: VirtualTime, keepsDate: Bool) {
        let exact = VirtualTime(seconds: seconds)
        guard exact.isExact, now.isExact else { return (exact, false) }
        // The date `now` reads, as a burst of `schedule(after: now)` gives it: now itself, which
        // the steps below would find too (its own date is `seconds`, so the offset is zero), at
        // the cost of two exact conversions and an `Int128` division.
        if exact == now, reading == nil { return (now, false) }
        // Within a few roundings, enough to filter; from the halves, as `Double(Int128)` is a
        // generic conversion that cost as much as the rest of a schedule.
        let raw = now.raw
        let nowSeconds = (Double(Int64(truncatingIfNeeded: raw >> 64)) * 0x1p64
            + Double(UInt64(truncatingIfNeeded: raw))) * 1e-18
        let reference = reading ?? nowSeconds
        // The spacing of `Double`s at the larger of the magnitudes, one binade up at an edge
        // (`nextUp`), so that it bounds every rounding on the way.
        // (Two-argument `max`s: the variadic one builds an array.)
        let scale = max(max(seconds.magnitude, reference.magnitude), nowSeconds.magnitude).nextUp
        guard scale < Self.gridReadingLimit else { return (exact, false) }
        // Most dates are nowhere near the grid (any binary value, as the benchmarks schedule):
        // tell them in `Double` arithmetic, with room for its errors, before the exact check.
        let tolerance = 4e6 * scale.ulp
        guard Self.isNearWholeMicroseconds(seconds - reference, tolerance)
            || (reading != nil && Self.isNearWholeMicroseconds(seconds - nowSeconds, tolerance))
        else { return (exact, false) }
        let spacing = Self.attoseconds(powerOfTwo: scale.ulp)
        // A little more, for the rounding of `x` itself and of the attoseconds below.
        let window = spacing + spacing >> 10 + 2
        let binary = Self.binaryAttoseconds(seconds)
        // 1. From the date `now` reads; 2. from N.
        let readSeconds = reading ?? now.date.timeIntervalSinceReferenceDate
        var offset = Self.nearestMicroseconds(to: binary - Self.binaryAttoseconds(readSeconds), within: window)
        if offset == nil {
            offset = Self.nearestMicroseconds(to: binary - now.raw, within: window)
        }
        guard let offset else { return (exact, false) }
        if offset == 0 && seconds != readSeconds { return (exact, false) }
        let time = VirtualTime(raw: now.raw + offset)
        return (time, time.date.timeIntervalSinceReferenceDate != seconds)
    }

    /// Whether `offset` seconds is within `tolerance` µs of a whole number of microseconds.
    /// (|offset| < 2^33 s here, so it has at most 2^53 µs.)
    private static func isNearWholeMicroseconds(_ offset: Double, _ tolerance: Double) -> Bool {
        let micros = offset * 1e6
        let fraction = (micros - Double(Int64(micros))).magnitude  // no call into libm
        return min(fraction, 1 - fraction) <= tolerance
    }

    /// The whole number of microseconds (in attoseconds) nearest `offset`, if within `window`.
    private static func nearestMicroseconds(to offset: Int128, within window: Int128) -> Int128? {
        let (quotient, remainder) = offset.quotientAndRemainder(dividingBy: Self.microsecond)
        var micros = quotient
        if 2 * remainder.magnitude >= Self.microsecond.magnitude { micros += offset < 0 ? -1 : 1 }
        let candidate = micros * Self.microsecond
        return (candidate - offset).magnitude <= window.magnitude ? candidate : nil
    }

    /// The exact binary value of `seconds` (finite, below 2^62 in magnitude) in attoseconds,
    /// rounded: unlike ``init(seconds:)``, no decimal reading.
    private static func binaryAttoseconds(_ seconds: Double) -> Int128 {
        let magnitude = Int128(roundedAttoseconds(seconds.magnitude))
        return seconds < 0 ? -magnitude : magnitude
    }

    /// 1 µs in attoseconds.
    private static var microsecond: Int128 { 1_000_000_000_000 }

    /// 2^32 s (the year 2137): from there the spacing of `Double`s (954 ns) and the window of
    /// two spacings would hold two whole microseconds, and a date is read as its own value.
    private static var gridReadingLimit: Double { 0x1p32 }

    /// `value` (a power of two, at most 2^-20 s here) in attoseconds, rounded down:
    /// 10^18 × 2^e = 5^18 × 2^(18 + e).
    private static func attoseconds(powerOfTwo value: Double) -> Int128 {
        let exponent = Int(value.exponentBitPattern) - 1023
        let fivePower18: Int128 = 3_814_697_265_625
        let shift = 18 + exponent
        if shift >= 0 { return fivePower18 << shift }
        return -shift >= 64 ? 0 : fivePower18 >> -shift
    }
}
