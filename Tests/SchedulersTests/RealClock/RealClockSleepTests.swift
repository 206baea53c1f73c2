#if compiler(>=6.3) && os(Linux)  // where real-clock sleeps can be seen (RealClockSleepInterception.swift)
import Foundation
@testable import Schedulers
import Testing
import TestSupport

/// Inside a capture, a sleep on a real clock wakes `d` of virtual time later, `d` being what it
/// asked for, as if it had slept on the scheduler's clock: every spelling, every whole number of
/// milliseconds up to an hour, in the same order every run, quiet and beside busy tasks, under
/// the sanitizers too (with a tenth of the runs). Exactly, every run: the real clocks read
/// virtual time in the world (WorldClock.swift), so a sleep's deadline is a virtual time, not
/// one recovered from real readings.
@Suite(.ownThread, .timeLimit(.minutes(5))) struct RealClockSleepTests {
    typealias Sleep = @Sendable (Duration) async throws -> Void

    /// Every spelling of a real-clock sleep a test meets in code that does not inject a clock.
    static let forms: [(name: String, sleep: Sleep)] = [
        ("Task.sleep(for:)", { try await Task.sleep(for: $0) }),
        ("Task.sleep(for:clock: .suspending)", { try await Task.sleep(for: $0, clock: .suspending) }),
        ("Task.sleep(nanoseconds:)", { try await Task.sleep(nanoseconds: nanoseconds($0)) }),
        ("Task.sleep(until:clock: .continuous)", { try await Task.sleep(until: .now + $0, clock: .continuous) }),
        ("Task.sleep(until:clock: .suspending)", { try await Task.sleep(until: .now + $0, clock: .suspending) }),
        ("ContinuousClock().sleep(for:)", { try await ContinuousClock().sleep(for: $0) }),
        ("SuspendingClock().sleep(for:)", { try await SuspendingClock().sleep(for: $0) }),
        ("ContinuousClock().sleep(until:)", { try await ContinuousClock().sleep(until: .now + $0) }),
        ("SuspendingClock().sleep(until:)", { try await SuspendingClock().sleep(until: .now + $0) }),
    ]

    static let runs = stressCount(1_000)

    static func nanoseconds(_ duration: Duration) -> UInt64 {
        UInt64(duration.components.seconds) * 1_000_000_000 + UInt64(duration.components.attoseconds / 1_000_000_000)
    }

    /// One run: a captured task sleeps `duration` with `sleep`; it has not woken after
    /// `duration - 1 ms` of virtual time, and has, at exactly `duration`, after 1 ms more.
    /// - Returns: nil if so, else what happened instead.
    static func missOfSleep(_ sleep: @escaping Sleep, for duration: Duration) -> String? {
        let scheduler = TestScheduler()
        let start = scheduler.clock.now
        let woke = Locked<Duration?>(nil)
        let early = scheduler.withCapturedTasks {
            Task {
                try await sleep(duration)
                woke.withLock { $0 = start.duration(to: scheduler.clock.now) }
            }
            scheduler.advance(by: duration - .milliseconds(1))
            let early = woke.value != nil
            scheduler.advance(by: .milliseconds(1))
            return early
        }
        guard early || woke.value != duration || scheduler.pendingCount != 0 else { return nil }
        return "\(duration) woke at \(woke.value.map { "\($0)" } ?? "never"), \(scheduler.pendingCount) pending"
    }

    @Test(arguments: 0..<forms.count, [false, true]) func everyFormWakesAtNowPlusItsDuration(index: Int, busy: Bool) {
        let (name, sleep) = Self.forms[index]
        let (wrong, warnings) = Warning.capture {
            BusyTasks.around(busy: busy) {
                (0..<Self.runs).compactMap { run in Self.missOfSleep(sleep, for: .milliseconds(1 + run % 7 * 150)) }
            }
        }
        #expect(wrong.count == 0, "\(name): \(wrong.count) of \(Self.runs) runs wrong: \(wrong.prefix(10))")
        #expect(warnings == [], "\(name): a sleep in virtual time is not worth a warning")
    }

    /// Seeded random whole-millisecond durations up to an hour, each form in turn.
    @Test(arguments: [false, true]) func randomWholeMillisecondsUpToAnHour(busy: Bool) {
        let seed = UInt64.random(in: 0...UInt64.max)
        var random = SeededRandom(seed: seed)
        var misses: [String] = []
        BusyTasks.around(busy: busy) {
            for run in 0..<Self.runs {
                let duration = Duration.milliseconds(Int64.random(in: 1...3_600_000, using: &random))
                let (name, sleep) = Self.forms[run % Self.forms.count]
                if let miss = Self.missOfSleep(sleep, for: duration) { misses.append("\(name): \(miss)") }
            }
        }
        #expect(misses.count == 0, "seed \(seed): \(misses)")
    }

    /// Three tasks sleeping the same duration wake at that time, in the order they were created,
    /// in every run.
    @Test(arguments: [false, true]) func equalSleepsWakeInCreationOrder(busy: Bool) {
        var outOfOrder = 0
        var missed = 0
        BusyTasks.around(busy: busy) {
            for run in 0..<Self.runs {
                let sleep = Self.forms[run % Self.forms.count].sleep
                let scheduler = TestScheduler()
                let start = scheduler.clock.now
                let woke = Locked<[(index: Int, at: Duration)]>([])
                scheduler.withCapturedTasks {
                    for index in 0..<3 {
                        Task {
                            try await sleep(.seconds(2))
                            woke.withLock { $0.append((index, start.duration(to: scheduler.clock.now))) }
                        }
                    }
                    scheduler.advance(by: .seconds(3))
                }
                if woke.value.contains(where: { $0.at != .seconds(2) }) {
                    missed += 1
                } else if woke.value.map(\.index) != [0, 1, 2] {
                    outOfOrder += 1
                }
            }
        }
        #expect(outOfOrder == 0)
        #expect(missed == 0)
    }

    /// Deadlines chained on the previous one (`last + interval`, as swift-async-algorithms'
    /// `AsyncTimerSequence` sleeps) keep their beat: 1, 2, 3 s of virtual time, not a delay
    /// read against the real `now` of each sleep (1, 3, 6 s).
    @Test(arguments: [false, true]) func chainedDeadlinesKeepTheirBeat(busy: Bool) {
        var wrong: [String] = []
        BusyTasks.around(busy: busy) {
            for run in 0..<Self.runs {
                let scheduler = TestScheduler()
                let start = scheduler.clock.now
                let ticks = Locked<[Duration]>([])
                let suspending = run % 2 == 1
                scheduler.withCapturedTasks {
                    Task {
                        if suspending {
                            var last = SuspendingClock.now
                            for _ in 0..<3 {
                                last = last + .seconds(1)
                                try await SuspendingClock().sleep(until: last)
                                ticks.withLock { $0.append(start.duration(to: scheduler.clock.now)) }
                            }
                        } else {
                            var last = ContinuousClock.now
                            for _ in 0..<3 {
                                last = last + .seconds(1)
                                try await Task.sleep(until: last, clock: .continuous)
                                ticks.withLock { $0.append(start.duration(to: scheduler.clock.now)) }
                            }
                        }
                    }
                    scheduler.advance(by: .milliseconds(999))
                    if ticks.value != [] { wrong.append("early: \(ticks.value)") }
                    scheduler.advance(by: .milliseconds(2001))
                    if ticks.value != [.seconds(1), .seconds(2), .seconds(3)] { wrong.append("\(ticks.value)") }
                }
            }
        }
        #expect(wrong.count == 0, "\(wrong.prefix(10))")
    }

    /// A sleep in the middle of work: the wake-up runs in the drive that reaches its time, and
    /// the task goes on there, on the driving thread, as the scheduler's work.
    @Test func theTaskGoesOnInTheDriveThatWakesIt() {
        let scheduler = TestScheduler()
        let steps = Locked<[String]>([])
        scheduler.withCapturedTasks {
            Task {
                steps.withLock { $0.append("before") }
                try await Task.sleep(for: .milliseconds(300))
                steps.withLock { $0.append("after, current: \(Scheduler.current === scheduler)") }
                try await Task.sleep(nanoseconds: 200_000_000)
                steps.withLock { $0.append("done") }
            }
            scheduler.advance(by: .milliseconds(300))
            #expect(steps.value == ["before", "after, current: true"])
            scheduler.advance(by: .milliseconds(200))
            #expect(steps.value == ["before", "after, current: true", "done"])
        }
        #expect(scheduler.pendingCount == 0)
    }

    /// A cancelled real-clock sleep throws at once, as out of a capture, and leaves nothing
    /// pending that would fire later.
    @Test func aCancelledSleepThrowsAndTheWakeUpIsHarmless() {
        let scheduler = TestScheduler()
        let outcome = Locked<String?>(nil)
        scheduler.withCapturedTasks {
            let task = Task {
                do {
                    try await Task.sleep(for: .seconds(10))
                    outcome.withLock { $0 = "woke" }
                } catch {
                    outcome.withLock { $0 = "\(type(of: error))" }
                }
            }
            scheduler.advance(by: .seconds(1))
            task.cancel()
            scheduler.advance(by: 0)
            #expect(outcome.value == "CancellationError")
            scheduler.advance(by: .seconds(10))
            #expect(outcome.value == "CancellationError")
        }
        #expect(scheduler.pendingCount == 0)
    }

    /// Durations finer than a millisecond, and a day, wake at exactly `d` too, in every form; a
    /// deadline in the past (zero) is due at once.
    @Test func everyDurationFromANanosecondToADayIsExact() {
        var misses: [String] = []
        let durations: [Duration] = [.zero, .nanoseconds(1), .nanoseconds(999), .microseconds(7), .microseconds(1500), .seconds(86_400)]
        for (name, sleep) in Self.forms {
            for asked in durations {
                let scheduler = TestScheduler()
                let start = scheduler.clock.now
                let at = Locked<Duration?>(nil)
                scheduler.withCapturedTasks {
                    Task {
                        try await sleep(asked)
                        at.withLock { $0 = start.duration(to: scheduler.clock.now) }
                    }
                    scheduler.advance(by: .seconds(86_401))
                }
                if at.value != asked { misses.append("\(name) \(asked): \(String(describing: at.value))") }
            }
        }
        #expect(misses == [])
    }
}
#endif
