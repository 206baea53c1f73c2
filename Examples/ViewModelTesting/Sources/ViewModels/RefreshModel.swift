/// A feed refreshed 300 ms after the user asks, as apps write it: no clock injected, the real
/// clock's `Task.sleep(for:)`. A newer request restarts the wait.
public final class RefreshModel {
    public private(set) var items: [String] = []
    public private(set) var loads = 0
    private var pending: Task<Void, Never>?
    private let load: @Sendable () async -> [String]

    public init(load: @escaping @Sendable () async -> [String]) {
        self.load = load
    }

    public func refresh() {
        pending?.cancel()
        pending = Task {
            do { try await Task.sleep(for: .milliseconds(300)) } catch { return }
            loads += 1
            items = await load()
        }
    }
}
