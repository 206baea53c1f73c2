import AsyncAlgorithms
import Clocks
import ConcurrencyExtras
import CoreFoundation
import Foundation
import Schedulers

/// Workload 8: async-algorithms' `debounce` over an `AsyncChannel` fed with six values by a
/// producer task sleeping on the clock (the scenario of Integrations/AsyncAlgorithms'
/// `overAChannelFedByASleepingProducer`), checked at 3.5 s and at
/// the end. Ours: a `TestScheduler` inside `withCapturedTasks`, driven by `advance(to:)`. Peer:
/// pointfreeco/swift-clocks' `TestClock` in its recommended pattern, inside
/// swift-concurrency-extras' `withMainSerialExecutor`, driven by `await clock.advance(by:)`.
/// Each run returns whether everything happened at the exact virtual time.
public enum AsyncDebounceWorkload {
    /// Seconds of quiet before the producer's next value.
    static let gaps: [Double] = [0.25, 0.25, 1.5, 0.5, 0.25, 2.0]
    /// What the consumer sees by 3.5 s, and in all.
    static let expectedEarly = [Event(value: 2, time: 1.5)]
    static let expected = [
        Event(value: 2, time: 1.5), Event(value: 5, time: 3.75), Event(value: 6, time: 5.75), Event(value: -1, time: 6.25),
    ]

    struct Event: Equatable, Sendable {
        let value: Int
        let time: Double
    }

    /// What the consumer saw; -1 marks the end of the sequence.
    final class Log: @unchecked Sendable {
        private let lock = NSLock()
        private var events: [Event] = []

        func append(_ value: Int, at time: Double) {
            lock.lock()
            events.append(Event(value: value, time: time))
            lock.unlock()
        }

        var value: [Event] {
            lock.lock()
            defer { lock.unlock() }
            return events
        }
    }

    /// Starts the producer and the consumer as plain unstructured tasks, as a test would.
    static func start<C: Clock>(clock: C, seconds: @escaping @Sendable () -> Double, log: Log) where C.Duration == Duration {
        let channel = AsyncChannel<Int>()
        Task {
            for (value, gap) in zip(1..., gaps) {
                try await clock.sleep(for: .seconds(gap))
                await channel.send(value)
            }
            try await clock.sleep(for: .seconds(1.5))
            channel.finish()
        }
        Task {
            for await value in channel.debounce(for: .seconds(1), clock: clock) {
                log.append(value, at: seconds())
            }
            log.append(-1, at: seconds())
        }
    }

    /// One run on our `TestScheduler`. - Returns: whether it was exact.
    public static func ours() -> Bool {
        let scheduler = TestScheduler()
        return scheduler.withCapturedTasks {
            let log = Log()
            start(clock: scheduler.clock, seconds: { scheduler.now.timeIntervalSinceReferenceDate }, log: log)
            scheduler.advance(to: Date(timeIntervalSinceReferenceDate: 3.5))
            let early = log.value
            scheduler.advance(to: Date(timeIntervalSinceReferenceDate: 10))
            return early == expectedEarly && log.value == expected && scheduler.pendingCount == 0
        }
    }

    /// One run on swift-clocks' `TestClock`, in its recommended pattern. - Returns: whether it
    /// was exact.
    @MainActor
    public static func testClock() async -> Bool {
        let outcome = Log()
        await withMainSerialExecutor {
            let clock = TestClock()
            let start = clock.now
            let log = Log()
            Self.start(clock: clock, seconds: { seconds(start.duration(to: clock.now)) }, log: log)
            await clock.advance(by: .seconds(3.5))
            let early = log.value
            await clock.advance(by: .seconds(6.5))
            outcome.append(early == expectedEarly && log.value == expected ? 1 : 0, at: 0)
        }
        return outcome.value.first?.value == 1
    }

    private static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) * 1e-18
    }

    /// Runs `body` as a main-actor task from synchronous code on the main thread, running the
    /// main run loop until it is done, so that main-queue work (all of
    /// `withMainSerialExecutor`'s jobs) drains: on Linux the main queue drains only while the
    /// main thread runs its run loop. One `CFRunLoopRun` for the whole body (a parked timer
    /// keeps the run loop from returning at once while it is idle), stopped by the body's end:
    /// spinning `RunLoop.run(mode:before:)` instead would add a timer set-up per main-queue job.
    public static func runOnMainActor<T: Sendable>(_ body: @escaping @MainActor () async -> T) -> T {
        precondition(Thread.isMainThread, "runOnMainActor must be called on the main thread")
        let box = ResultBox<T>()
        let park = Timer(timeInterval: 3_600, repeats: true) { _ in }
        RunLoop.main.add(park, forMode: .default)
        Task { @MainActor in
            box.value = await body()
            CFRunLoopStop(CFRunLoopGetMain())
        }
        while box.value == nil {
            CFRunLoopRun()
        }
        park.invalidate()
        return box.value!
    }
}

/// Where a main-actor task leaves its result for the thread that spins the run loop; written
/// before the semaphore is signalled, read after it is waited for.
final class ResultBox<T>: @unchecked Sendable {
    var value: T?
    init() {}
}
