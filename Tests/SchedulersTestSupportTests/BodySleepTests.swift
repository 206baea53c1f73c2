import Foundation
@_spi(SchedulersInternal) import Disposables
import SchedulersTestSupport
import Testing
import TestSupport

/// A capture's body that sleeps lets virtual time pass to its deadline, in a manual capture too,
/// and goes on only once what is due at that time has run: swift-clocks' "let a little time
/// pass" line ports as written and never deadlocks.
@Suite(.ownThread, .timeLimit(.minutes(5))) struct BodySleepTests {
    @Test func aManualCapturesBodySleepsThroughWhatIsDue() async throws {
        let scheduler = TestScheduler()
        let ticks = Counter()
        try await scheduler.withCapturedTasks {
            Task {
                for _ in 0..<3 {
                    try await Task.sleep(for: .milliseconds(40))
                    ticks.increment()
                }
            }
            try await Task.sleep(for: .milliseconds(80))    // the tick at 80 ms has run
            #expect(ticks.value == 2)
            #expect(scheduler.now == Date(timeIntervalSinceReferenceDate: 0.08))
            try await scheduler.clock.sleep(for: .milliseconds(40))
            #expect(ticks.value == 3)
            #expect(scheduler.now == Date(timeIntervalSinceReferenceDate: 0.12))
        }
        // Time moved only as far as the body slept.
        #expect(scheduler.now == Date(timeIntervalSinceReferenceDate: 0.12))
    }

    /// swift-clocks' `testRun`, as its users write it: a task sleeps on the test clock, the
    /// test lets a little real time pass, then runs the clock.
    @Test func swiftClocksTestRunPortsAsWritten() async throws {
        let scheduler = TestScheduler()
        let clock = scheduler.clock
        try await scheduler.withCapturedTasks {
            let didFinish = Counter()
            let task = Task {
                try await clock.sleep(for: .seconds(1))
                didFinish.increment()
            }
            try await Task.sleep(for: .seconds(0.01))
            #expect(didFinish.value == 0)
            await clock.run()
            try await task.value
            #expect(didFinish.value == 1)
        }
    }

    /// In a manual capture time moves by itself only while the body sleeps: work pending past
    /// the body's deadline stays pending until the test drives.
    @Test func timeStopsAtTheBodysDeadline() async throws {
        let scheduler = TestScheduler()
        let fired = Counter()
        try await scheduler.withCapturedTasks {
            Task {
                try await Task.sleep(for: .seconds(10))
                fired.increment()
            }
            try await Task.sleep(for: .seconds(1))
            #expect(scheduler.now == Date(timeIntervalSinceReferenceDate: 1))
            #expect(fired.value == 0)
            await scheduler.clock.advance(by: .seconds(9))
            #expect(fired.value == 1)
        }
    }

    /// A cancelled sleep of the body ends at once, and time does not move on after it.
    @Test func aCancelledSleepOfTheBodyLetsNoTimePass() async throws {
        let scheduler = TestScheduler()
        await scheduler.withCapturedTasks {
            let sleeper = Task { try await Task.sleep(for: .seconds(5)) }
            sleeper.cancel()
            await #expect(throws: CancellationError.self) { try await sleeper.value }
            withUnsafeCurrentTask { $0?.cancel() }
            await #expect(throws: CancellationError.self) { try await scheduler.clock.sleep(for: .seconds(3)) }
        }
        #expect(scheduler.now == Date(timeIntervalSinceReferenceDate: 0))
    }
}

/// A count that tasks the test starts bump and the test reads (a `Lock`, which ThreadSanitizer
/// sees through, where apps would write `Mutex`).
final class Counter: Sendable {
    private let count = Lock(0)
    func increment() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}
