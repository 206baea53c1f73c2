// snippet: readme-first-virtual-time-test
import SchedulersTestSupport   // re-exports Schedulers
import Testing

@Test(.virtualTime) @MainActor func debounces() async throws {
    let model = SearchModel(backend: { ["\($0)!"] })
    model.queryChanged("s")
    try await Task.sleep(for: .milliseconds(100))   // virtual: instant
    model.queryChanged("sw")
    try await Task.sleep(for: .milliseconds(299))
    #expect(model.results == [])                    // not a moment early
    try await Task.sleep(for: .milliseconds(1))
    #expect(model.results == ["sw!"])               // exactly on time
}
// snippet: end

// The README's test above is a top-level test function, as a user writes it, so it has no suite
// to carry `.ownThread` and `.timeLimit`: it never blocks a thread, and its time is virtual.

// snippet: readme-search-model
// Production code as written: no clock injected.
@MainActor final class SearchModel {
    var results: [String] = []
    private var search: Task<Void, Never>?
    let backend: @Sendable (String) async -> [String]

    init(backend: @escaping @Sendable (String) async -> [String]) {
        self.backend = backend
    }

    func queryChanged(_ query: String) {
        search?.cancel()
        search = Task {
            try? await Task.sleep(for: .milliseconds(300))
            guard !Task.isCancelled else { return }
            results = await backend(query)
        }
    }
}
// snippet: end

@Suite(.ownThread, .timeLimit(.minutes(5))) struct ReadmeExamples {
    // snippet: readme-manual-drives
    @Test(.virtualTime(advancing: .manually)) @MainActor
    func debouncesStepByStep() async throws {
        let scheduler = try #require(TestScheduler.capturing)
        let model = SearchModel(backend: { ["\($0)!"] })
        model.queryChanged("s")
        await scheduler.clock.advance(by: .milliseconds(299))
        #expect(model.results == [])
        await scheduler.clock.advance(by: .milliseconds(1))
        #expect(model.results == ["s!"])
    }
    // snippet: end
}
