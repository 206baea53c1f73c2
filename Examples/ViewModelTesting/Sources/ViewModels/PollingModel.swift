/// Refreshes every 5 seconds while started: each refresh goes off the main actor (to the
/// backend) and comes back with the value.
public final class PollingModel {
    public private(set) var values: [Int] = []
    private var polling: Task<Void, Never>?
    private let backend: Backend
    private let clock: any Clock<Duration>

    public init(backend: Backend, clock: any Clock<Duration>) {
        self.backend = backend
        self.clock = clock
    }

    public func start() {
        polling = Task {
            while !Task.isCancelled {
                if let value = try? await backend.fetch() { values.append(value) }
                do { try await clock.sleep(for: .seconds(5)) } catch { return }
            }
        }
    }

    public func stop() {
        polling?.cancel()
    }
}
