import Foundation

/// A moment of a ``TestScheduler``'s virtual time, or a span of it, kept exactly: a whole number
/// of attoseconds since the reference date (2001-01-01), the unit of Swift's `Duration`.
///
/// Why not a `Date`: a `Double` of seconds cannot hold 1 ms, so a thousand steps of 1 ms made
/// 1.0000000000000007 s, and `.milliseconds(300)` and `advance(by: 0.3)` missed each other.
/// Here `Duration`s add exactly, as swift-clocks' `TestClock` adds them, and a `Double` of
/// seconds is read as the decimal it was written as (see ``init(seconds:)``).
///
/// **Range.** Exact within ±2^62 s of the reference date (146 billion years), which holds every
/// `Date` a test writes, `distantPast` and `distantFuture` included, and any two of whose
/// moments are at most ``TestScheduler/Clock/Instant/longestDuration`` apart. The rest of
/// `Double`'s range, out to ±infinity, is still ordered correctly but only as exact as the
/// `Double` itself: such a value is stored as its `Double` bit pattern above every exact one
/// (`±(2^123 + bits)`), so that one integer comparison orders everything and an action at
/// `greatestFiniteMagnitude` still runs.
///
/// Plain data: one 128-bit integer kept as two 64-bit halves, so that the type (and
/// ``TestScheduler/Clock/Instant``, which users keep in async code) has alignment 8, like
/// `ContinuousClock.Instant` and `Duration`. A stored `Int128` has alignment 16, and the Swift
/// 6.3.1 compiler on Linux was reported to miscompile 16-byte-aligned values held across awaits
/// in debug builds (a SIGSEGV on the task's first job). The heap orders 64-bit summaries of it
/// (``coarse``), and compares two exact values only when their summaries are equal.
struct VirtualTime: Hashable, Comparable, Sendable {
    /// The high and low halves of ``raw``. Canonical: each value has one representation, so
    /// `==` on the halves is `raw ==`.
    private var high: Int64
    private var low: UInt64

    /// Attoseconds since the reference date when its magnitude is below ``exactLimit``; else the
    /// far encoding.
    var raw: Int128 {
        @inline(__always) get { Int128(high) << 64 | Int128(low) }
        @inline(__always) set {
            high = Int64(truncatingIfNeeded: newValue >> 64)
            low = UInt64(truncatingIfNeeded: newValue)
        }
    }

    // Computed constants rather than stored `static let`s: those would cost a lazy-initialisation
    // check on every use, and some are used on every schedule.

    /// 2^62 s, in attoseconds: the exact range's bound (exclusive). A literal, and inlined: the
    /// product `(1 << 62) * 10^18` was a call on every schedule (callgrind).
    static var exactLimit: Int128 {
        @inline(__always) get { 4_611_686_018_427_387_904_000_000_000_000_000_000 }
    }
    /// 2^62 s, in seconds.
    static var exactLimitSeconds: Double { 0x1p62 }
    /// Where the far encoding starts: above every exact value (`exactLimit` < 2^122).
    static var farBase: Int128 { Int128(1) << 123 }
    /// 5^18: 10^18 = 2^18 × 5^18, and 5^18 < 2^42, so a `Double`'s 53-bit significand times it fits.
    private static var fivePower18: UInt128 { 3_814_697_265_625 }

    static var zero: VirtualTime { VirtualTime(raw: 0) }
    /// `Double.greatestFiniteMagnitude` seconds: where an action due at infinity runs.
    static var greatestFinite: VirtualTime {
        VirtualTime(raw: farBase + Int128(Double.greatestFiniteMagnitude.bitPattern))
    }
    static var infinity: VirtualTime { VirtualTime(raw: farBase + Int128(Double.infinity.bitPattern)) }
    static var negativeInfinity: VirtualTime { VirtualTime(raw: -infinity.raw) }

    init(raw: Int128) {
        high = Int64(truncatingIfNeeded: raw >> 64)
        low = UInt64(truncatingIfNeeded: raw)
    }

    /// Exactly `attoseconds`, when within the exact range; beyond it, the nearest `Double`.
    init(attoseconds: Int128) {
        if attoseconds.magnitude < Self.exactLimit.magnitude {
            self.init(raw: attoseconds)
        } else {
            self.init(raw: Self.farRaw(Self.seconds(attoseconds: attoseconds)))
        }
    }

    /// Exactly `duration` (within ±2^62 s; a longer one is as exact as a `Double`).
    init(_ duration: Duration) {
        self.init(attoseconds: duration.attoseconds)
    }

    /// `seconds` as a moment (since the reference date) or a span, read so that it means what
    /// it says and comes back unchanged:
    ///
    /// - a whole number of nanoseconds written in decimal is that many nanoseconds exactly:
    ///   0.3 is 300 ms, not the `Double`'s binary value 0.29999999999999998889…; precisely,
    ///   `n` ns when `n` < 2^53 and `Double(n) / 1e9 == seconds`;
    /// - any other value is its exact binary value rounded to the nearest attosecond;
    /// - beyond ±2^62 s, and ±infinity, the far encoding (see the type).
    ///
    /// Either way ``seconds`` gives back the very same `Double`, except within 2^-7 s (7.8 ms)
    /// of zero for a value with detail finer than an attosecond (1e-20, `leastNonzeroMagnitude`),
    /// which comes back as the `Double` nearest its attosecond.
    ///
    /// - Precondition: `seconds` is not NaN (callers decide what NaN means).
    init(seconds: Double) {
        precondition(!seconds.isNaN, "VirtualTime: NaN seconds")
        if seconds.magnitude >= Self.exactLimitSeconds {
            self.init(raw: Self.farRaw(seconds))
            return
        }
        let scaled = seconds * 1e9
        if scaled.magnitude < 0x1p53 {
            // `scaled.rounded()` (to nearest, halves away from zero), without the call into libm
            // that costs every schedule: truncate, then step by the exact remainder.
            var nanoseconds = Int64(scaled)
            let rest = scaled - Double(nanoseconds)
            if rest >= 0.5 { nanoseconds += 1 } else if rest <= -0.5 { nanoseconds -= 1 }
            if Double(nanoseconds) / 1e9 == seconds {
                self.init(raw: Int128(nanoseconds) * 1_000_000_000)
                return
            }
        }
        // Below 2^122 (see `roundedAttoseconds`): the bit pattern is the value, without the
        // generic checked conversion, a call on every schedule of a date off the nanosecond grid.
        let magnitude = Int128(bitPattern: Self.roundedAttoseconds(seconds.magnitude))
        self.init(raw: seconds < 0 ? -magnitude : magnitude)
    }

    /// A date's time: `Date(timeIntervalSinceReferenceDate:)` inverted (see ``init(seconds:)``).
    init(_ date: Date) {
        self.init(seconds: date.timeIntervalSinceReferenceDate)
    }

    /// Whether this lies in the exact range (it always does for anything a test writes).
    /// Inlined, as the few summaries below: each schedule and pop reads them (callgrind: a call
    /// each cost as much as the work).
    @inline(__always)
    var isExact: Bool {
        raw.magnitude < Self.exactLimit.magnitude
    }

    /// Not ±infinity.
    var isFinite: Bool {
        self > Self.negativeInfinity && self < Self.infinity
    }

    /// The nearest `Double` of seconds (ties to even): exact arithmetic in, one rounding out.
    var seconds: Double {
        if isExact { return Self.seconds(attoseconds: raw) }
        let far = Double(bitPattern: UInt64(raw.magnitude - Self.farBase.magnitude))
        return raw < 0 ? -far : far
    }

    /// This moment as the `Date` a test reads.
    var date: Date {
        Date(timeIntervalSinceReferenceDate: seconds)
    }

    /// A 64-bit summary that keeps the order, for the heap (``VirtualTimeQueue``): `a < b`
    /// implies `a.coarse <= b.coarse`, and equal values have equal summaries, so two different
    /// summaries order their values and only equal ones need the exact values compared. Laid
    /// out like a floating-point number: the sign, then the position of the magnitude's leading
    /// one (7 bits), then the 56 bits after it. Values closer than 2^-56 relative may share a
    /// summary (within 8 fs of each other at 1,000 s); below 2^57 as (144 s) none do.
    @inline(__always)
    var coarse: UInt64 {
        let magnitude = raw.magnitude
        var summary: UInt64 = 0
        if magnitude != 0 {
            // Below 2^125 (``farBase`` plus a bit pattern): the exponent fits in 7 bits.
            let leadingZeros = magnitude.leadingZeroBitCount
            let fraction = UInt64(truncatingIfNeeded: (magnitude &<< leadingZeros) &>> 71) & (1 << 56 - 1)
            summary = UInt64(128 - leadingZeros) << 56 | fraction
        }
        // Negative values below all others, and the larger the magnitude the lower.
        return raw < 0 ? (1 << 63 - 1) - summary : 1 << 63 | summary
    }

    /// The smallest value after this one: 1 as later, or the next `Double` in the far range.
    var successor: VirtualTime {
        isExact ? VirtualTime(attoseconds: raw + 1) : VirtualTime(seconds: seconds.nextUp)
    }

    /// Exact within the exact range; else `Double` arithmetic (±infinity on overflow).
    static func + (lhs: VirtualTime, rhs: VirtualTime) -> VirtualTime {
        if lhs.isExact && rhs.isExact {
            // Both below 2^122 in magnitude: the sum cannot overflow.
            return VirtualTime(attoseconds: lhs.raw + rhs.raw)
        }
        let sum = lhs.seconds + rhs.seconds
        // Only +infinity plus -infinity, which no caller adds; read it as no move at all.
        return sum.isNaN ? lhs : VirtualTime(seconds: sum)
    }

    @inline(__always)
    static func < (lhs: VirtualTime, rhs: VirtualTime) -> Bool {
        // The halves: the high ones signed, then the low ones unsigned, is the order of `raw`.
        lhs.high < rhs.high || (lhs.high == rhs.high && lhs.low < rhs.low)
    }

    // MARK: Conversions

    /// `attoseconds` / 10^18, correctly rounded (to nearest, ties to even), so that a
    /// `Duration` of 300 ms is the `Double` 0.3, and every value ``init(seconds:)`` makes comes
    /// back as the `Double` it was made from.
    static func seconds(attoseconds: Int128) -> Double {
        if attoseconds == 0 { return 0 }
        let magnitude = attoseconds.magnitude
        var result: Double
        let (nanoseconds, rest) = magnitude.quotientAndRemainder(dividingBy: 1_000_000_000)
        if rest == 0, nanoseconds < 1 << 53 {
            // Both operands exact, and IEEE division rounds correctly: one rounding in all.
            result = Double(UInt64(nanoseconds)) / 1e9
        } else {
            // Two roundings (the conversion, the division) leave it within an ulp or two of
            // the answer: step to the Double whose rounding interval holds the exact quotient.
            result = Double(magnitude) / 1e18
            while true {
                let above = compare(magnitude, toMidpointAbove: result)
                if above > 0 || (above == 0 && result.significandBitPattern & 1 == 1) {
                    result = result.nextUp
                    continue
                }
                let below = compare(magnitude, toMidpointAbove: result.nextDown)
                if below < 0 || (below == 0 && result.significandBitPattern & 1 == 1) {
                    result = result.nextDown
                    continue
                }
                break
            }
        }
        return attoseconds < 0 ? -result : result
    }

    /// The sign of `attoseconds / 10^18 − (value + value.nextUp) / 2`, computed exactly.
    /// `value` is a positive normal `Double`.
    private static func compare(_ attoseconds: UInt128, toMidpointAbove value: Double) -> Int {
        // value = M × 2^e (M the 53-bit significand), so the midpoint is (2M + 1) × 2^(e − 1)
        // (also when value.nextUp starts a new binade), and times 10^18 = 2^18 × 5^18 it is
        // P × 2^k with P = (2M + 1) × 5^18 < 2^96.
        let significand = UInt128(value.significandBitPattern | (1 << 52))
        let exponent = Int(value.exponentBitPattern) - 1075
        let scaled = (2 * significand + 1) * fivePower18
        return compare(attoseconds, toScaled: scaled, timesTwoToThe: exponent - 1 + 18)
    }

    /// The sign of `lhs − rhs × 2^k`, exactly, for `lhs > 0`.
    private static func compare(_ lhs: UInt128, toScaled rhs: UInt128, timesTwoToThe k: Int) -> Int {
        if k >= 0 {
            if k >= rhs.leadingZeroBitCount { return -1 }  // rhs × 2^k ≥ 2^128 > lhs
            let shifted = rhs << k
            return lhs < shifted ? -1 : lhs > shifted ? 1 : 0
        }
        if -k >= lhs.leadingZeroBitCount { return 1 }  // lhs × 2^-k ≥ 2^128 > rhs
        let shifted = lhs << -k
        return shifted < rhs ? -1 : shifted > rhs ? 1 : 0
    }

    /// A finite, non-negative `magnitude` below 2^62, exactly, rounded to attoseconds (halves up).
    static func roundedAttoseconds(_ magnitude: Double) -> UInt128 {
        if magnitude == 0 { return 0 }
        // magnitude = significand × 2^exponent exactly; × 10^18 = significand × 5^18 × 2^(exponent + 18).
        let significand: UInt64
        let exponent: Int
        if magnitude.isNormal {
            significand = magnitude.significandBitPattern | (1 << 52)
            exponent = Int(magnitude.exponentBitPattern) - 1075
        } else {
            significand = magnitude.significandBitPattern
            exponent = -1074
        }
        let scaled = UInt128(significand) * fivePower18  // < 2^95
        let shift = exponent + 18
        if shift >= 0 { return scaled << shift }  // < 2^62 × 10^18 < 2^122: no overflow
        let right = -shift
        if right >= 97 { return 0 }  // scaled / 2^right < 1/2
        return (scaled + (UInt128(1) << (right - 1))) >> right
    }

    /// The far encoding of `seconds` (|seconds| ≥ 2^62, or infinite): its bit pattern above
    /// every exact value, negated for negative values, so that the order is the `Double`s'.
    private static func farRaw(_ seconds: Double) -> Int128 {
        let encoded = farBase + Int128(seconds.magnitude.bitPattern)
        return seconds < 0 ? -encoded : encoded
    }
}
