import AsyncAlgorithms

/// Search as you type: queries are debounced by 300 ms (swift-async-algorithms' `debounce`),
/// then looked up. Main-actor isolated by the module's default isolation.
public final class SearchModel<C: Clock> where C.Duration == Duration {
    public private(set) var results: [String] = []
    public private(set) var searches = 0
    private let queries: AsyncStream<String>.Continuation
    private var task: Task<Void, Never>?

    public init(clock: C, catalogue: [String]) {
        let (stream, continuation) = AsyncStream.makeStream(of: String.self)
        queries = continuation
        task = Task { [weak self] in
            for await query in stream.debounce(for: .milliseconds(300), clock: clock) {
                guard let self else { return }
                searches += 1
                results = catalogue.filter { $0.hasPrefix(query) }
            }
        }
    }

    public func queryChanged(_ query: String) {
        queries.yield(query)
    }

    /// Stops listening (a view going away).
    public func close() {
        queries.finish()
    }
}
