import AsyncAlgorithms
import Schedulers
import Testing

/// The root README's worked example, as written there.
@Suite struct ReadmeExample {
    @Test func searchesAfterASecondOfQuiet() {
        let scheduler = TestScheduler()
        scheduler.withCapturedTasks {
            let (queries, input) = AsyncStream.makeStream(of: String.self)
            let searches = Locked<[String]>([])                 // any thread-safe box
            Task {
                for await query in queries.debounce(for: .seconds(1), clock: scheduler.clock) {
                    searches.withLock { $0.append("\(query) at \(scheduler.now.timeIntervalSinceReferenceDate)") }
                }
            }
            scheduler.advance(by: 0)                            // the consumer starts
            input.yield("s");   scheduler.advance(by: 0.25)
            input.yield("sw");  scheduler.advance(by: 0.25)
            input.yield("swi"); scheduler.advance(by: 0.75)
            #expect(searches.value.isEmpty)                     // 0.25 s short of a second of quiet
            scheduler.advance(by: 0.25)
            #expect(searches.value == ["swi at 1.5"])           // emitted inside that advance
        }
    }

    /// This package's README example.
    @Test func packageReadmeExample() {
        let scheduler = TestScheduler()
        let seen = Locked<[String]>([])
        scheduler.withCapturedTasks {
            let (queries, input) = AsyncStream.makeStream(of: String.self)
            Task {
                for await query in queries.debounce(for: .seconds(1), clock: scheduler.clock) {
                    seen.append("\(query) \(scheduler.now.timeIntervalSinceReferenceDate)")
                }
            }
            scheduler.advance(by: 0)
            input.yield("s");   scheduler.advance(by: 0.25)
            input.yield("sw");  scheduler.advance(by: 0.25)
            input.yield("swi"); scheduler.advance(by: 1)
        }
        #expect(seen.value == ["swi 1.5"])
    }
}
