import Dispatch

/// A client as legacy code writes one: it answers through a completion handler on a Dispatch
/// queue, at once or after `latency`.
public struct LegacyCatalogueClient: Sendable {
    public let catalogue: [String]
    public let latency: DispatchTimeInterval?

    public init(catalogue: [String], latency: DispatchTimeInterval? = nil) {
        self.catalogue = catalogue
        self.latency = latency
    }

    public nonisolated func search(_ query: String, completion: @escaping @Sendable ([String]) -> Void) {
        let found = catalogue.filter { $0.hasPrefix(query) }
        if let latency {
            DispatchQueue.global().asyncAfter(deadline: .now() + latency) { completion(found) }
        } else {
            DispatchQueue.global().async { completion(found) }
        }
    }
}

/// Search as you type on a completion-handler client, with no clock injected: a 300 ms pause on
/// the real clock, then one search. Main-actor isolated by the module's default isolation.
public final class LegacySearchModel {
    public private(set) var results: [String] = []
    public private(set) var searches = 0
    private var pending: Task<Void, Never>?
    private let client: LegacyCatalogueClient

    public init(client: LegacyCatalogueClient) {
        self.client = client
    }

    public func queryChanged(_ query: String) {
        pending?.cancel()
        pending = Task { [client] in
            try? await Task.sleep(for: .milliseconds(300))
            guard !Task.isCancelled else { return }
            let found = await withCheckedContinuation { done in
                client.search(query) { done.resume(returning: $0) }
            }
            searches += 1
            results = found
        }
    }
}
