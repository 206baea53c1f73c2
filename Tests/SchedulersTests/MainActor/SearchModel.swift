import Foundation

/// The contract's view model: what an app writes, `@MainActor`, debouncing on an injected clock.
@MainActor final class SearchModel {
    var results: [String] = []
    private(set) var searches = 0
    private var search: Task<Void, Never>?
    private let clock: any Clock<Duration>

    init(clock: any Clock<Duration>) { self.clock = clock }

    func queryChanged(_ query: String) {
        search?.cancel()
        search = Task {  // inherits the main actor
            do { try await clock.sleep(for: .milliseconds(300)) } catch { return }
            MainActor.assertIsolated()
            searches += 1
            results = [query]
        }
    }
}
