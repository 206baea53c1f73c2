import AsyncAlgorithms
import Schedulers
import Testing

// The swift-async-algorithms example of the "Testing with virtual time" article
// (Sources/Schedulers/Schedulers.docc/TestingWithVirtualTime.md), as a test that asserts what the
// article says. Keep the two in step.

@Suite struct DocumentationExampleTests {
    @Test func debounceInVirtualTime() {
        let scheduler = TestScheduler()
        let (keystrokes, input) = AsyncStream.makeStream(of: String.self)
        // Safe: captured tasks run on this thread, inside withCapturedTasks and advance.
        nonisolated(unsafe) var searches: [String] = []
        nonisolated(unsafe) var finished = false
        scheduler.withCapturedTasks {
            Task {
                for await query in keystrokes.debounce(for: .seconds(1), clock: scheduler.clock) {
                    searches.append(query)
                }
                finished = true
            }
            scheduler.advance(by: 0)       // the consumer starts
            input.yield("s")
            scheduler.advance(by: 0.5)
            input.yield("sw")
            scheduler.advance(by: 0.5)
            input.yield("swi")
            scheduler.advance(by: 0.999)
            #expect(searches.isEmpty)      // a second of quiet has not passed yet
            scheduler.advance(by: 0.001)
            #expect(searches == ["swi"])   // exactly one second after the last keystroke
            input.finish()
            scheduler.advance(by: 0)
        }
        #expect(finished)
        #expect(scheduler.pendingCount == 0)
    }
}
