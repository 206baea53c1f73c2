import Foundation
@testable import Schedulers
import Testing
import TestSupport

/// Tests written for swift-clocks' `TestClock`, moved onto a TestScheduler by changing the clock
/// line and wrapping the body in `await scheduler.withCapturedTasks { … }`: each waits for the
/// work it starts in one of the ways Swift allows, and none may hang. Each runs many times, so
/// that an interleaving that differs between runs would show.
@Suite(.ownThread, .timeLimit(.minutes(5))) struct ClockHabitTests {
    static let runs = stressCount(200)

    /// The contract's example: a `Task.yield()` loop waiting for a task to begin, a sleep until
    /// now, then an advance.
    @Test func startsThenSleeps() async throws {
        for _ in 0..<Self.runs {
            let scheduler = TestScheduler()
            let clock = scheduler.clock
            try await scheduler.withCapturedTasks {
                let started = Locked(false)
                let task = Task {
                    started.withLock { $0 = true }
                    try await clock.sleep(for: .seconds(1))
                    return 42
                }
                while !started.value { await Task.yield() }
                try await clock.sleep(until: clock.now)
                await clock.advance(by: .seconds(1))
                #expect(try await task.value == 42)
            }
        }
    }

    /// The same, once, as the testing article shows it.
    @Test func startsThenSleepsAsDocumented() async throws {
        // snippet: starts-then-sleeps
        let scheduler = TestScheduler()
        let clock = scheduler.clock
        try await scheduler.withCapturedTasks {
            let started = Locked(false)
            let task = Task {
                started.withLock { $0 = true }
                try await clock.sleep(for: .seconds(1))
                return 42
            }
            while !started.value { await Task.yield() } // runs what is due now
            try await clock.sleep(until: clock.now)     // returns at once
            await clock.advance(by: .seconds(1))
            #expect(try await task.value == 42)
        }
        // snippet: end
    }

    /// Which form a body calls, in an async test: one that awaits, the asynchronous form (the
    /// body runs as a captured task, so as the scheduler's work); one with no `await`, the
    /// synchronous form (the body runs on the calling thread), as the doc comment of
    /// `withCapturedTasks(isolation:_:)` says. Swift chooses by the closure alone.
    @Test func aBodyWithNoAwaitTakesTheSynchronousForm() async {
        let scheduler = TestScheduler()
        let synchronous = scheduler.withCapturedTasks { Scheduler.current === scheduler }
        let asynchronous = await scheduler.withCapturedTasks {
            await Task.yield()
            return Scheduler.current === scheduler
        }
        #expect(!synchronous)
        #expect(asynchronous)
    }

    /// Captures nest, of two schedulers (the innermost wins) or of one.
    @Test func nestedCaptures() async {
        for _ in 0..<Self.runs {
            let outer = TestScheduler()
            let inner = TestScheduler()
            let value = await outer.withCapturedTasks {
                await inner.withCapturedTasks {
                    let task = Task {
                        try? await inner.clock.sleep(for: .seconds(1))
                        return 3
                    }
                    await inner.clock.advance(by: .seconds(1))
                    return await task.value
                }
            }
            #expect(value == 3)
            #expect(outer.pendingCount == 0 && inner.pendingCount == 0)
            let same = TestScheduler()
            let sum = await same.withCapturedTasks {
                let first = Task { 1 }
                let second = await same.withCapturedTasks { await Task { 2 }.value }
                return await first.value + second
            }
            #expect(sum == 3)
        }
    }

    /// A deadline at or before `now` returns at once, inside a capture or not, without a drive.
    @Test func sleepUntilNowOrEarlierReturns() async throws {
        let scheduler = TestScheduler()
        let clock = scheduler.clock
        scheduler.advance(by: 5)
        try await clock.sleep(until: clock.now)
        try await clock.sleep(until: clock.now.advanced(by: .seconds(-1)))
        try await scheduler.withCapturedTasks {
            try await clock.sleep(until: clock.now)
            try await clock.sleep(for: .zero)
        }
        #expect(clock.now == TestScheduler.Clock.Instant(date: Date(timeIntervalSinceReferenceDate: 5)))
        #expect(scheduler.pendingCount == 0)
    }

    /// `await task.value` of a task that has work due now: it runs while the body waits.
    @Test func awaitsATasksValue() async {
        for _ in 0..<Self.runs {
            let scheduler = TestScheduler()
            let value = await scheduler.withCapturedTasks {
                await Task { 7 }.value
            }
            #expect(value == 7)
        }
    }

    /// `async let` bindings, one of which sleeps: the body advances, then awaits both.
    @Test func asyncLet() async throws {
        for _ in 0..<Self.runs {
            let scheduler = TestScheduler()
            let clock = scheduler.clock
            try await scheduler.withCapturedTasks {
                async let first = { 1 }()
                async let second = { () async throws -> Int in
                    try await clock.sleep(for: .milliseconds(500))
                    return 2
                }()
                #expect(await first == 1)
                await clock.advance(by: .milliseconds(500))
                let value = try await second
                #expect(value == 2)
            }
        }
    }

    /// A task group whose children sleep: advanced from the body, then drained.
    @Test func taskGroup() async {
        for _ in 0..<Self.runs {
            let scheduler = TestScheduler()
            let clock = scheduler.clock
            let total = await scheduler.withCapturedTasks {
                await withTaskGroup(of: Int.self) { group in
                    for index in 1...3 {
                        group.addTask {
                            try? await clock.sleep(for: .seconds(index))
                            return index
                        }
                    }
                    await clock.advance(by: .seconds(3))
                    var total = 0
                    for await value in group { total += value }
                    return total
                }
            }
            #expect(total == 6)
        }
    }

    /// A `for await` over a stream that a captured task feeds and finishes.
    @Test func streamFinishedByACapturedTask() async {
        for _ in 0..<Self.runs {
            let scheduler = TestScheduler()
            let clock = scheduler.clock
            let received = await scheduler.withCapturedTasks {
                let stream = Self.countingStream(on: clock)
                await clock.advance(by: .seconds(3))
                var received: [Int] = []
                for await value in stream { received.append(value) }
                return received
            }
            #expect(received == [0, 1, 2])
        }
    }

    /// A stream read as it is fed: each element arrives at its virtual time.
    @Test func streamReadWhileAdvancing() async {
        for _ in 0..<Self.runs {
            let scheduler = TestScheduler()
            let clock = scheduler.clock
            let log = await scheduler.withCapturedTasks {
                let stream = Self.countingStream(on: clock)
                var iterator = stream.makeAsyncIterator()
                var log: [String] = []
                for _ in 0..<3 {
                    await clock.advance(by: .seconds(1))
                    let value = await iterator.next()
                    log.append("\(value ?? -1) at \(scheduler.now.timeIntervalSinceReferenceDate)")
                }
                #expect(await iterator.next() == nil)
                return log
            }
            #expect(log == ["0 at 1.0", "1 at 2.0", "2 at 3.0"])
        }
    }

    /// A continuation that a captured task resumes.
    @Test func continuationResumedByACapturedTask() async {
        for _ in 0..<Self.runs {
            let scheduler = TestScheduler()
            let value = await scheduler.withCapturedTasks {
                await withCheckedContinuation { continuation in
                    Task { continuation.resume(returning: 5) }
                }
            }
            #expect(value == 5)
        }
    }

    /// The interleaving of the body and the tasks it starts is the same every run: one serial,
    /// FIFO world at the current virtual time.
    @Test func oneInterleavingEveryRun() async {
        var seen: Set<[String]> = []
        for _ in 0..<Self.runs {
            let scheduler = TestScheduler()
            let log = Locked<[String]>([])
            await scheduler.withCapturedTasks {
                let tasks = (0..<3).map { index in
                    Task {
                        log.withLock { $0.append("task \(index) starts") }
                        await Task.yield()
                        log.withLock { $0.append("task \(index) ends") }
                    }
                }
                log.withLock { $0.append("body yields") }
                await Task.yield()
                log.withLock { $0.append("body resumes") }
                for task in tasks { await task.value }
                log.withLock { $0.append("body ends") }
            }
            seen.insert(log.value)
        }
        #expect(seen.count == 1)
    }

    /// A captured task that yields in a loop until a later time does not keep `advance` from
    /// returning.
    @Test func yieldLoopDoesNotStopAdvance() async {
        for _ in 0..<Self.runs {
            let scheduler = TestScheduler()
            let clock = scheduler.clock
            let flag = Locked(false)
            let done = Locked(false)
            await scheduler.withCapturedTasks {
                Task {
                    try? await clock.sleep(for: .seconds(1))
                    flag.withLock { $0 = true }
                }
                let spinner = Task {
                    var spins = 0
                    while !flag.value {
                        await Task.yield()
                        spins += 1
                        #expect(Scheduler.current === scheduler)
                    }
                    done.withLock { $0 = true }
                    return spins
                }
                await clock.advance(by: .seconds(1))
                // Released for the documented number of rounds of nothing but yields at 0 s, then
                // once at 1 s, where the spinner saw the flag.
                #expect(done.value)
                #expect(await spinner.value == VirtualTimeCore.yieldOnlyRoundLimit + 1)
            }
            #expect(flag.value)
            #expect(done.value)
            #expect(scheduler.pendingCount == 0)
        }
    }

    /// A stream that a captured task (started here, inside the capture) feeds with 0, 1 and 2,
    /// one a second of `clock`'s time, then finishes.
    static func countingStream(on clock: TestScheduler.Clock) -> AsyncStream<Int> {
        let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
        Task {
            for index in 0..<3 {
                try? await clock.sleep(for: .seconds(1))
                continuation.yield(index)
            }
            continuation.finish()
        }
        return stream
    }
}
