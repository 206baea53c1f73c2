import Foundation
import Schedulers
import Testing
import TestSupport

// The "Testing with virtual time" article's examples of captured tasks
// (TestingWithVirtualTime.md): `TestScheduler.withCapturedTasks(_:)`.

@Suite(.ownThread, .timeLimit(.minutes(5))) struct CapturedTasksExamples {
    /// A plain `Task {}` started inside `withCapturedTasks` runs only when the scheduler is
    /// driven, on the driving thread, so a sleep on its clock is exact.
    @Test func capturedPlainTasksRunInVirtualTime() {
        let scheduler = TestScheduler()
        nonisolated(unsafe) var done = false
        scheduler.withCapturedTasks {
            Task {
                try await Task.sleep(for: .seconds(5), clock: scheduler.clock)
                done = true
            }
            scheduler.advance(by: 4.999)
            #expect(!done)
            scheduler.advance(by: 0.001)
            #expect(done)
        }
        #expect(scheduler.pendingCount == 0)
    }

    /// What library operators do inside (swift-async-algorithms' debounce starts unstructured
    /// tasks): a task started from a captured task is captured too.
    @Test func tasksStartedByCapturedTasksAreCaptured() {
        let scheduler = TestScheduler()
        nonisolated(unsafe) var log: [String] = []
        scheduler.withCapturedTasks {
            Task {
                Task.detached {
                    try await scheduler.sleep(for: .seconds(1))
                    log.append("inner")
                }
                log.append("outer")
            }
            scheduler.advance(by: 0)
            #expect(log == ["outer"])
            scheduler.advance(by: 1)
            #expect(log == ["outer", "inner"])
        }
    }

    /// A body whose only `try` would sit inside `#expect` does not compile (Swift decides whether
    /// a closure throws before it expands the macro); the article's spelling, with the `try`
    /// before `#expect`, does, with both capture forms, and so does a stated signature.
    @Test func aTryBeforeExpectMakesTheBodyThrow() async throws {
        // snippet: captured-tasks-try-before-expect
        let scheduler = TestScheduler()
        let clock = scheduler.clock
        try await scheduler.withCapturedTasks {
            let task = Task {
                try await clock.sleep(for: .seconds(1))
                return 42
            }
            await clock.advance(by: .seconds(1))
            // The try goes before #expect, not inside it:
            try #expect(await task.value == 42)
        }
        // snippet: end
        struct NotANumber: Error {}
        func parse(_ text: String) throws -> Int {
            guard let value = Int(text) else { throw NotANumber() }
            return value
        }
        try scheduler.withCapturedTasks {
            try #expect(parse("7") == 7)
        }
        try await scheduler.withCapturedTasks { () async throws in
            #expect(try parse("8") == 8)
        }
        try scheduler.withCapturedTasks { () throws in
            #expect(try parse("9") == 9)
        }
        #expect(scheduler.pendingCount == 0)
    }
}

// The swift-async-algorithms example of TestingWithVirtualTime.md is a test of the package that
// depends on swift-async-algorithms: Integrations/AsyncAlgorithms/Tests/AsyncAlgorithmsSchedulersTests/DocumentationExampleTests.swift.
