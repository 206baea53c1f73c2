import Dispatch
import Foundation
@testable import Schedulers
import Testing
import TestSupport

/// `withCapturedTasks(advancing: .automatically)`: time jumps to the earliest pending due time
/// whenever the world in virtual time is idle, until the body returns; the same trace every
/// run, quiet and beside busy tasks; work waiting on the outside world does not hold time back;
/// a body that waits while time moves without end is reported.
@Suite(.ownThread, .timeLimit(.minutes(5))) struct AutomaticAdvanceTests {
    static let runs = stressCount(1_000)

    struct Unavailable: Error {}
    struct TimedOut: Error {}

    /// A retry with backoff on an injected clock: fails `failures` times, sleeping 1, 2, 4 s.
    static func fetchWithRetry(attempts: Int, failures: Int, clock: some Clock<Duration>) async throws -> Int {
        var delay = Duration.seconds(1)
        for attempt in 1...attempts {
            if attempt > failures { return 42 }
            if attempt == attempts { break }
            try await clock.sleep(for: delay)
            delay *= 2
        }
        throw Unavailable()
    }

    /// One run of the retry: the value, and the virtual time the body took.
    static func retry(clock: (TestScheduler) -> any Clock<Duration>) async throws -> (Int, Duration) {
        let scheduler = TestScheduler()
        let start = scheduler.clock.now
        let value = try await scheduler.withCapturedTasks(advancing: .automatically) {
            try await fetchWithRetry(attempts: 4, failures: 3, clock: clock(scheduler))
        }
        return (value, start.duration(to: scheduler.clock.now))
    }

    @Test(arguments: [false, true]) func aRetryWithBackoffTakesItsVirtualTime(busy: Bool) async throws {
        var wrong = 0
        try await BusyTasks.around(busy: busy) {
            for _ in 0..<Self.runs {
                let (value, spent) = try await Self.retry { $0.clock }
                if value != 42 || spent != .seconds(7) { wrong += 1 }
            }
        }
        #expect(wrong == 0)
    }

    /// The same on the real continuous clock, as code that injects nothing sleeps: exact too,
    /// since the clock reads virtual time in the world.
    @Test(arguments: [false, true]) func aRetryOnTheRealClockTakesItsVirtualTime(busy: Bool) async throws {
        var wrong = 0
        try await BusyTasks.around(busy: busy) {
            for _ in 0..<Self.runs {
                let (value, spent) = try await Self.retry { _ in ContinuousClock() }
                if value != 42 || spent != .seconds(7) { wrong += 1 }
            }
        }
        #expect(wrong == 0)
    }

    /// The body's own sleep, and tasks it starts: a trace of (virtual ms, event), the same in
    /// every run. At 300 ms the body's sleep, made at 0, wakes after b's third tick, made at 200
    /// (the body's sleeps let time pass: it sees what happened by its deadline).
    @Test(arguments: [false, true]) func theTraceIsTheSameEveryRun(busy: Bool) async throws {
        let expected = ["0 start", "0 a starts", "0 b starts", "100 b ticks", "200 b ticks", "250 a wakes",
                        "300 b ticks", "300 body wakes", "300 b ends", "300 done"]
        var wrong = 0
        try await BusyTasks.around(busy: busy) {
            for _ in 0..<Self.runs {
                let scheduler = TestScheduler()
                let trace = Locked<[String]>([])
                let start = scheduler.clock.now
                @Sendable func note(_ event: String) {
                    let ms = start.duration(to: scheduler.clock.now) / .milliseconds(1)
                    trace.withLock { $0.append("\(Int(ms)) \(event)") }
                }
                try await scheduler.withCapturedTasks(advancing: .automatically) {
                    note("start")
                    let a = Task {
                        note("a starts")
                        try await scheduler.clock.sleep(for: .milliseconds(250))
                        note("a wakes")
                    }
                    let b = Task {
                        note("b starts")
                        for _ in 0..<3 {
                            try await scheduler.clock.sleep(for: .milliseconds(100))
                            note("b ticks")
                        }
                    }
                    try await scheduler.clock.sleep(for: .milliseconds(300))
                    note("body wakes")
                    try await a.value
                    try await b.value
                    note("b ends")
                    note("done")
                }
                if trace.value != expected { wrong += 1 }
            }
        }
        #expect(wrong == 0)
    }

    /// A timeout race in a task group: the 2 s timeout wins over a 5 s operation, and the
    /// body returns at 2 s of virtual time.
    @Test(arguments: [false, true]) func aTaskGroupTimeoutRace(busy: Bool) async throws {
        var wrong = 0
        await BusyTasks.around(busy: busy) {
            for _ in 0..<Self.runs {
                let scheduler = TestScheduler()
                let start = scheduler.clock.now
                let outcome = await scheduler.withCapturedTasks(advancing: .automatically) { () async -> String in
                    do {
                        return try await withThrowingTaskGroup(of: String.self) { group in
                            group.addTask {
                                try await Task.sleep(for: .seconds(5), clock: scheduler.clock)
                                return "loaded"
                            }
                            group.addTask {
                                try await Task.sleep(for: .seconds(2), clock: scheduler.clock)
                                throw TimedOut()
                            }
                            defer { group.cancelAll() }
                            return try await group.next() ?? "none"
                        }
                    } catch {
                        return "\(type(of: error))"
                    }
                }
                if outcome != "TimedOut" || start.duration(to: scheduler.clock.now) != .seconds(2) { wrong += 1 }
            }
        }
        #expect(wrong == 0)
    }

    /// A backend that answers on a Dispatch queue, awaited while nothing else is pending. In a
    /// binary that links SchedulersTestSupport (this one) the block is the world's and its
    /// deadline virtual (WorldDispatchTests): the answer comes at 20 ms of virtual time. Without
    /// it, the body waits for the answer while time stands still. Either way the body goes on
    /// after it, with no report.
    @Test func aDispatchCallbackIsAwaitedWhileNothingIsPending() async {
        let scheduler = TestScheduler()
        let start = scheduler.clock.now
        let (value, warnings) = await Warning.capture(about: scheduler) {
            await scheduler.withCapturedTasks(advancing: .automatically) {
                let answer = await withCheckedContinuation { (continuation: CheckedContinuation<Int, Never>) in
                    DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(20)) {
                        continuation.resume(returning: 7)
                    }
                }
                try? await scheduler.clock.sleep(for: .seconds(1))
                return answer
            }
        }
        #expect(value == 7)
        #expect(start.duration(to: scheduler.clock.now) == .milliseconds(1_020))
        #expect(warnings == [])
    }

    /// A loop of `Task.yield()` waiting for a later time lets time move; up to 16 yields in a
    /// row finish at the time they began.
    @Test func yieldsLetTimeMoveOnlyWhenTheyAreAllThereIs() async {
        let scheduler = TestScheduler()
        let start = scheduler.clock.now
        await scheduler.withCapturedTasks(advancing: .automatically) {
            let flag = Locked(false)
            let task = Task {
                try await scheduler.clock.sleep(for: .seconds(1))
                flag.withLock { $0 = true }
            }
            for _ in 0..<16 { await Task.yield() }
            #expect(start.duration(to: scheduler.clock.now) == .zero)
            while !flag.value { await Task.yield() }
            #expect(start.duration(to: scheduler.clock.now) == .seconds(1))
            _ = await task.result
        }
    }

    /// Manual drives still work inside, and the body's return stops time: a repeating action
    /// still pending does not run on.
    @Test func manualDrivesWorkAndTheReturnStopsTime() async {
        let scheduler = TestScheduler()
        let start = scheduler.clock.now
        let ticks = Locked(0)
        let repeating = scheduler.schedule(after: .seconds(1), repeatingEvery: .seconds(1)) { ticks.withLock { $0 += 1 } }
        await scheduler.withCapturedTasks(advancing: .automatically) {
            await scheduler.clock.advance(by: .milliseconds(2500))
            #expect(ticks.value == 2)
            try? await scheduler.clock.sleep(for: .seconds(1))
        }
        #expect(ticks.value == 3)
        #expect(start.duration(to: scheduler.clock.now) == .milliseconds(3500))
        repeating?.dispose()
    }

    /// A body that waits for what no time brings while a repeating action keeps time moving is
    /// a runaway: after ten thousand advances in a row that ran none of its jobs (a
    /// count, so the same every run at any load) it is reported, its task is cancelled (the
    /// stream it iterates ends) and time stops moving by itself.
    @Test func aRunawayIsReportedAfterACountOfAdvancesAndItsBodyCancelled() async {
        let scheduler = TestScheduler()
        let ticks = Locked(0)
        let repeating = scheduler.schedule(after: .seconds(1), repeatingEvery: .seconds(1)) {
            ticks.withLock { $0 += 1 }
        }
        let (stream, continuation) = AsyncStream<Int>.makeStream()
        let (cancelled, warnings) = await Warning.capture(about: scheduler) {
            await scheduler.withCapturedTasks(advancing: .automatically) {
                for await _ in stream {}
                return Task.isCancelled
            }
        }
        repeating?.dispose()
        continuation.finish()
        #expect(cancelled)
        #expect(ticks.value == TestScheduler.runawayAdvances)
        #expect(warnings.count == 1)
        let message = warnings.first ?? ""
        #expect(message.contains("withCapturedTasks(advancing: .automatically)"))
        #expect(message.contains("moved by itself 10000 times in a row without the body going on"))
        #expect(message.contains("1 of them repeating"))
        #expect(message.contains("so its task is cancelled"))
        #expect(message.hasSuffix("(Once per capture.)"))
    }

    /// The driver lets go of its thread between advances, as a waiting task does: a slow
    /// answer from a task outside the world comes while a heartbeat keeps time moving, even
    /// with one thread in the cooperative pool (`.ci/run` runs this suite again under
    /// `taskset -c 0`, where a driver that held its thread would keep the answer out until the
    /// runaway report).
    @Test func theDriverLetsGoOfItsThreadBetweenAdvances() async {
        let scheduler = TestScheduler()
        let heartbeat = scheduler.schedule(after: .seconds(1), repeatingEvery: .seconds(1)) {}
        // Driven from the cooperative pool: this suite's own tasks run on threads of their own.
        let (value, warnings) = await Task.detached {
            await Warning.capture(about: scheduler) {
                await scheduler.withCapturedTasks(advancing: .automatically) {
                    await withCheckedContinuation { (continuation: CheckedContinuation<Int, Never>) in
                        // A task of no world, on the pool, started from a thread outside the
                        // world (a Dispatch block the world submits would hold time).
                        Thread { Task.detached { continuation.resume(returning: 42) } }.start()
                    }
                }
            }
        }.value
        heartbeat?.dispose()
        #expect(value == 42)
        #expect(warnings == [])
    }

    /// A body that can never go on (nothing due, nothing pending, nothing in flight) is
    /// reported once `waitWarningDelay` has passed, in both modes, and its task is cancelled
    /// so that the test ends instead of hanging.
    @Test(arguments: [TestScheduler.Advancing.manually, .automatically])
    func aBodyThatCanNeverGoOnIsReportedAndCancelled(advancing: TestScheduler.Advancing) async {
        let scheduler = TestScheduler()
        scheduler.waitWarningDelay = .milliseconds(50)
        let (stream, continuation) = AsyncStream<Int>.makeStream()
        let (cancelled, warnings) = await Warning.capture(about: scheduler) {
            await scheduler.withCapturedTasks(advancing: advancing) {
                for await _ in stream {}
                return Task.isCancelled
            }
        }
        continuation.finish()
        #expect(cancelled)
        #expect(warnings.count == 1)
        let message = warnings.first ?? ""
        #expect(message.contains("can never go on"))
        #expect(message.contains("nothing due, nothing pending and no Dispatch work of its world in flight"))
        #expect(message.hasSuffix("(Once per scheduler.)"))
    }

    /// `.manually` is the default: `withCapturedTasks(advancing: .manually)` waits for the
    /// test to advance, as `withCapturedTasks { }` does.
    @Test func manuallyIsTheDefault() async {
        let scheduler = TestScheduler()
        let start = scheduler.clock.now
        await scheduler.withCapturedTasks(advancing: .manually) {
            let task = Task { try await scheduler.clock.sleep(for: .seconds(1)) }
            await scheduler.clock.advance(by: .seconds(1))
            _ = await task.result
        }
        #expect(start.duration(to: scheduler.clock.now) == .seconds(1))
        #expect(TestScheduler.Advancing.manually != .automatically)
    }
}
