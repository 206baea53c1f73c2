import Foundation
@testable import Schedulers
import Testing
import TestSupport

@concurrent private func concurrentWork(_ value: Int) async -> Int { value * 2 }

nonisolated(nonsending) private func nonsendingWork(_ value: Int) async -> Int { value + 1 }

/// Swift's own semantics hold inside a capture, only in virtual time: each shape gives what the
/// same code gives without a capture.
@Suite(.ownThread, .timeLimit(.minutes(5))) struct SwiftSemanticsInCaptureTests {
    static let runs = stressCount(200)

    /// `Task.immediate` runs synchronously up to its first suspension, in a synchronous capture
    /// on the main actor (a Swift Testing `@MainActor` test), then goes on in virtual time.
    @MainActor @Test func taskImmediateStartsAtOnceOnTheMainActor() {
        for _ in 0..<Self.runs {
            let scheduler = TestScheduler()
            var steps: [String] = []
            scheduler.withCapturedTasks {
                Task.immediate {
                    steps.append("started")
                    try? await scheduler.clock.sleep(for: .seconds(1))
                    steps.append("woke")
                }
                steps.append("after Task.immediate")
                scheduler.advance(by: 1)
            }
            #expect(steps == ["started", "after Task.immediate", "woke"])
        }
    }

    /// The same for a nonisolated `Task.immediate`.
    @Test func nonisolatedTaskImmediateStartsAtOnce() {
        for _ in 0..<Self.runs {
            let scheduler = TestScheduler()
            let steps = Locked([String]())
            scheduler.withCapturedTasks {
                Task.immediate { @concurrent in
                    steps.withLock { $0.append("started") }
                    try? await scheduler.clock.sleep(for: .seconds(1))
                    steps.withLock { $0.append("woke on the scheduler: \(Scheduler.current === scheduler)") }
                }
                steps.withLock { $0.append("after Task.immediate") }
                scheduler.advance(by: 1)
            }
            #expect(steps.value == ["started", "after Task.immediate", "woke on the scheduler: true"])
        }
    }

    /// `@concurrent`, `nonisolated(nonsending)`, task groups and `async let` give what they give
    /// without a capture.
    @Test func structuredConcurrencyGivesWhatItGivesWithoutACapture() async {
        func work(_ clock: any Clock<Duration>) async -> [Int] {
            async let first = concurrentWork(1)
            async let second = nonsendingWork(1)
            let grouped = await withTaskGroup(of: Int.self) { group in
                for value in 1...3 {
                    group.addTask {
                        try? await clock.sleep(for: .milliseconds(100 * value))
                        return value
                    }
                }
                var values: [Int] = []
                for await value in group { values.append(value) }
                return values
            }
            return await [first, second] + grouped
        }
        let expected = await work(ContinuousClock())
        for _ in 0..<Self.runs {
            let scheduler = TestScheduler()
            let captured = await scheduler.withCapturedTasks {
                let task = Task { await work(scheduler.clock) }
                await scheduler.clock.advance(by: .milliseconds(300))
                return await task.value
            }
            #expect(captured == expected)
            #expect(scheduler.now.timeIntervalSinceReferenceDate == 0.3)
        }
    }
}
