import Foundation
import Schedulers
import Testing
import TestSupport

/// Instants that users keep in async code: `let origin = clock.now` held across awaits while
/// task-group children arrive. The Swift 6.3 compiler on Linux miscompiled 16-byte-aligned
/// values held in async frames at `-Onone` (a SIGSEGV on the task's first job), so the values
/// users hold are laid out with alignment 8, like `ContinuousClock.Instant`. The test build is a
/// debug build; each scenario runs in a process of its own (an exit test), so that a crash fails
/// its test instead of the whole run.
@Suite(.ownThread, .timeLimit(.minutes(5))) struct KeptInstantTests {
    @Test func instantsHaveTheAlignmentOfContinuousClocks() {
        #expect(MemoryLayout<TestScheduler.Clock.Instant>.alignment == 8)
        #expect(MemoryLayout<TestScheduler.Clock.Instant>.alignment == MemoryLayout<ContinuousClock.Instant>.alignment)
        #expect(MemoryLayout<TestScheduler.Clock>.alignment == 8)
    }

    /// Children of a task preferring the scheduler sleep 100, 200, … 500 ms; the parent keeps
    /// `clock.now` from before and logs how long after it each child arrived.
    @Test func aKeptNowMeasuresTaskGroupChildrenPreferringTheScheduler() async {
        await #expect(processExitsWith: .success) {
            let scheduler = TestScheduler(startDate: Date())
            let log = Locked<[Duration]>([])
            Task(executorPreference: scheduler) {
                let clock = scheduler.clock
                let origin = clock.now
                await withTaskGroup(of: Int.self) { group in
                    for child in 1...5 {
                        group.addTask {
                            let start = clock.now
                            try? await clock.sleep(until: start.advanced(by: .milliseconds(100 * child)))
                            return child
                        }
                    }
                    for await _ in group {
                        log.withLock { $0.append(origin.duration(to: clock.now)) }
                    }
                }
            }
            scheduler.advance(by: .seconds(1))
            precondition(log.value == (1...5).map { .milliseconds(100 * $0) }, "arrivals: \(log.value)")
        }
    }

    /// The same, written as a swift-clocks test is: a task started inside a capture, driven by
    /// `await clock.advance(by:)` from the test body, which keeps an instant too.
    @Test func aKeptNowMeasuresTaskGroupChildrenInACapture() async {
        await #expect(processExitsWith: .success) {
            let scheduler = TestScheduler()
            let clock = scheduler.clock
            let arrivals = await scheduler.withCapturedTasks {
                let bodyOrigin = clock.now
                let task = Task {
                    let origin = clock.now
                    var arrivals: [Duration] = []
                    await withTaskGroup(of: TestScheduler.Clock.Instant.self) { group in
                        for child in 1...5 {
                            group.addTask {
                                try? await clock.sleep(for: .milliseconds(100 * child))
                                return clock.now
                            }
                        }
                        for await woke in group {
                            arrivals.append(origin.duration(to: woke))
                            arrivals.append(origin.duration(to: clock.now))
                        }
                    }
                    return arrivals
                }
                await clock.advance(by: .seconds(1))
                precondition(bodyOrigin.duration(to: clock.now) == .seconds(1), "body: \(bodyOrigin)")
                return await task.value
            }
            let expected = (1...5).flatMap { [Duration.milliseconds(100 * $0), .milliseconds(100 * $0)] }
            precondition(arrivals == expected, "arrivals: \(arrivals)")
        }
    }
}
