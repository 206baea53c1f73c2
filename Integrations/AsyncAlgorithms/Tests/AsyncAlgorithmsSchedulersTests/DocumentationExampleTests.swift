import AsyncAlgorithms
import Schedulers
import Testing

// The swift-async-algorithms example of the "Testing with virtual time" article
// (Sources/Schedulers/Schedulers.docc/TestingWithVirtualTime.md), as a test that asserts what the
// article says. The article's block (and README.md's) is a copy of the snippet region below (the
// root package's DocumentationSnippetTests compares them).

@Suite struct DocumentationExampleTests {
    @Test func debounceInVirtualTime() {
        // snippet: virtual-time-debounce
        let scheduler = TestScheduler()
        let (keystrokes, input) = AsyncStream.makeStream(of: String.self)
        // Safe: captured tasks run on this thread, inside advance.
        nonisolated(unsafe) var searches: [String] = []
        scheduler.withCapturedTasks {
            Task {
                let quiet = keystrokes.debounce(
                    for: .seconds(1), clock: scheduler.clock)
                for await query in quiet {
                    searches.append(query)
                }
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
            #expect(searches == ["swi"])   // exactly a second after the last key
            input.finish()                 // ends the loop, so the task finishes
            scheduler.advance(by: 0)
        }
        // snippet: end
        #expect(scheduler.pendingCount == 0)
    }
}
