import Foundation
import Schedulers
import Testing
import TestSupport

/// A `Date` means the time it plausibly denotes at its precision (TestScheduler's "Dates"): for
/// start dates from 2001 to 2100, `Date()` included, and every `x` on a microsecond grid up to an
/// hour, a date made as `now.addingTimeInterval(x)` meets a relative advance by `x`, both ways,
/// and not a microsecond earlier; and `now` reads back the very date given.
///
/// Each start is tried with a fresh scheduler per `x`, and with one scheduler advancing through
/// all of them in turn, whose `now` is then no `Double` at all (the harder case: a `Date` made
/// from it is rounded twice).
@Suite(.ownThread, .timeLimit(.minutes(5))) struct DatesMeetDurationsTests {
    /// Start dates across 2001...2100 (as seconds since 2001), with fractions as `Date()` has.
    static let starts: [Double] = [
        0,  // the reference date, the default start
        9_000_000.25,  // 2001-04-15, past the 104 days in which a Double holds whole nanoseconds
        817_000_000.123_456_789,  // 2026
        1_500_000_000.987_654_321,  // 2048
        2_200_000_000.555_555_555,  // 2070, past 2^31 s, where Doubles are 477 ns apart
        3_155_000_000.314_159_265,  // December 2100
    ]

    /// The microsecond counts tried: edges (1 µs, 1 ms, every k ms up to a second, an hour), then
    /// seeded random ones of every magnitude up to an hour.
    static func samples(seed: UInt64, count: Int) -> [Int64] {
        var micros: [Int64] = [1, 1_000, 3_600_000_000] + (1...1_000).map { Int64($0) * 1_000 }
        var random = SeededRandom(seed: seed)
        for _ in 0..<count {
            let magnitude = Int64.random(in: 0...9, using: &random)
            var power: Int64 = 1
            for _ in 0..<magnitude { power *= 10 }
            micros.append(Int64.random(in: 1...min(power * 10, 3_600_000_000), using: &random))
        }
        return micros
    }

    static let seed: UInt64 = 0x2028_0003

    /// What is checked for one `x` against a scheduler at its current `now`.
    enum Relation: CaseIterable {
        /// `schedule(after: now + x)` runs in `advance(by: x)`, seconds form, not in `x − 1 µs`.
        case dateInSecondsAdvance
        /// The same with `advance(by: Duration)`.
        case dateInDurationAdvance
        /// `schedule(afterDelay: x)` runs in `advance(to: now + x)`, not in `advance(to:)` 1 µs less.
        case delayInDateAdvance
        /// `sleep(until: now + x)` wakes in `advance(by: x)`, not in `x − 1 µs`.
        case sleepUntilDate
        /// `clock.sleep(until: Instant(date: now + x))` wakes in `advance(by: x)`, not earlier.
        case clockSleepUntilInstantFromDate
    }

    /// Checks `relation` for `micros` µs on `scheduler` from its current `now`, leaving it
    /// `micros` µs later. Returns what went wrong, if anything.
    static func check(_ relation: Relation, micros: Int64, on scheduler: TestScheduler) -> String? {
        let x = Double(micros) / 1e6
        let xLess = Double(micros - 1) / 1e6
        let date = scheduler.now.addingTimeInterval(x)
        let seen = Locked<Date?>(nil)
        func describe(_ what: String) -> String {
            "\(relation) x=\(micros) µs at now \(scheduler.now.timeIntervalSinceReferenceDate): \(what)"
        }
        switch relation {
        case .dateInSecondsAdvance, .dateInDurationAdvance:
            scheduler.schedule(after: date) { seen.withLock { $0 = scheduler.now } }
            if relation == .dateInSecondsAdvance { scheduler.advance(by: xLess) } else {
                scheduler.advance(by: .microseconds(micros - 1))
            }
            if seen.value != nil { return describe("ran 1 µs early") }
            if relation == .dateInSecondsAdvance { scheduler.advance(by: 1e-6) } else {
                scheduler.advance(by: .microseconds(1))
            }
            guard let ranAt = seen.value else { return describe("did not run") }
            if ranAt != date { return describe("now read \(ranAt.timeIntervalSinceReferenceDate) in the action") }
        case .delayInDateAdvance:
            let earlier = scheduler.now.addingTimeInterval(xLess)
            scheduler.schedule(afterDelay: x) { seen.withLock { $0 = scheduler.now } }
            scheduler.advance(to: earlier)
            if seen.value != nil { return describe("ran 1 µs early") }
            scheduler.advance(to: date)
            guard seen.value != nil else { return describe("did not run") }
            if scheduler.now != date {
                return describe("now read \(scheduler.now.timeIntervalSinceReferenceDate) after advance(to:)")
            }
        case .sleepUntilDate, .clockSleepUntilInstantFromDate:
            let clock = scheduler.clock
            Task(executorPreference: scheduler) {
                if relation == .sleepUntilDate {
                    try await scheduler.sleep(until: date)
                } else {
                    try await clock.sleep(until: .init(date: date))
                }
                seen.withLock { $0 = scheduler.now }
            }
            scheduler.advance(by: .microseconds(micros - 1))  // the task starts, then sleeps
            if seen.value != nil { return describe("woke 1 µs early") }
            scheduler.advance(by: .microseconds(1))
            guard let wokeAt = seen.value else { return describe("did not wake") }
            if wokeAt != date { return describe("now read \(wokeAt.timeIntervalSinceReferenceDate) on waking") }
        }
        return nil
    }

    /// Runs every relation for every sample, and returns how many failed and the first few.
    static func failures(start: Date, cumulative: Bool, samples: [Int64]) -> (count: Int, first: [String]) {
        var count = 0
        var first: [String] = []
        let shared = TestScheduler(startDate: start)
        for micros in samples {
            for relation in Relation.allCases {
                let scheduler = cumulative ? shared : TestScheduler(startDate: start)
                if let failure = check(relation, micros: micros, on: scheduler) {
                    count += 1
                    if first.count < 5 { first.append(failure) }
                }
            }
        }
        return (count, first)
    }

    @Test(arguments: starts, [false, true])
    func datesMeetRelativeAdvances(startSeconds: Double, cumulative: Bool) {
        let samples = Self.samples(seed: Self.seed, count: stressCount(2_000))
        let start = Date(timeIntervalSinceReferenceDate: startSeconds)
        let (count, first) = Self.failures(start: start, cumulative: cumulative, samples: samples)
        #expect(count == 0, "\(count) of \(samples.count * Relation.allCases.count) failed (seed \(Self.seed)): \(first)")
    }

    /// Today, whatever it is: a start date no decimal number can name.
    @Test(arguments: [false, true])
    func datesMeetRelativeAdvancesFromToday(cumulative: Bool) {
        let samples = Self.samples(seed: Self.seed &+ 1, count: stressCount(2_000))
        let start = Date()
        let (count, first) = Self.failures(start: start, cumulative: cumulative, samples: samples)
        #expect(
            count == 0,
            "\(count) of \(samples.count * Relation.allCases.count) failed (start \(start.timeIntervalSinceReferenceDate), seed \(Self.seed &+ 1)): \(first)")
    }

    /// The asynchronous drive reads an instant made from a date the same way.
    @Test func clockAdvanceToAnInstantFromADateRunsWhatADelayScheduled() async {
        let scheduler = TestScheduler(startDate: Date())
        let clock = scheduler.clock
        var misses: [Int64] = []
        for micros in Self.samples(seed: Self.seed &+ 2, count: stressCount(200)) {
            let date = scheduler.now.addingTimeInterval(Double(micros) / 1e6)
            let ran = Locked(false)
            scheduler.schedule(after: .microseconds(micros)) { ran.withLock { $0 = true } }
            await clock.advance(to: .init(date: date))
            if !ran.value || scheduler.now != date { misses.append(micros) }
        }
        #expect(misses.isEmpty, "missed for \(misses.prefix(10)) µs")
    }

    /// An instant made from a date keeps it: its `date` is that date again, and it compares by
    /// the date's own value.
    @Test func anInstantFromADateKeepsTheDate() {
        let date = Date(timeIntervalSinceReferenceDate: 817_000_000.123_456_789)
        let instant = TestScheduler.Clock.Instant(date: date)
        #expect(instant.date == date)
        #expect(instant == TestScheduler.Clock.Instant(date: date))
        #expect(instant.advanced(by: .zero) == instant)
        #expect(instant.duration(to: instant.advanced(by: .microseconds(3))) == .microseconds(3))
    }

    /// A date next to `now`'s own, not `now`'s own, is not read as `now`: written as it is, it
    /// is one `Double` later.
    @Test func theDateAfterNowsOwnIsLater() {
        let scheduler = TestScheduler(startDate: Date(timeIntervalSinceReferenceDate: 10.0.nextDown))
        let ran = Locked(false)
        scheduler.schedule(after: Date(timeIntervalSinceReferenceDate: 10)) { ran.withLock { $0 = true } }
        scheduler.advance(by: 0)
        #expect(!ran.value)
        scheduler.advance(to: scheduler.now)
        #expect(!ran.value)
        #expect(scheduler.now == Date(timeIntervalSinceReferenceDate: 10.0.nextDown))
        scheduler.advance(to: Date(timeIntervalSinceReferenceDate: 10))
        #expect(ran.value)
    }

    /// `clock.now` reads what `now` reads, also at a time read from a date.
    @Test func clockNowReadsTheDateNowReads() {
        let scheduler = TestScheduler(startDate: Date(timeIntervalSinceReferenceDate: 817_000_000.123_456_789))
        var mismatches = 0
        for micros in Self.samples(seed: Self.seed &+ 3, count: 200) {
            let date = scheduler.now.addingTimeInterval(Double(micros) / 1e6)
            scheduler.advance(to: date)
            if scheduler.now != date || scheduler.clock.now.date != scheduler.now { mismatches += 1 }
        }
        #expect(mismatches == 0)
    }
}
