/// Loads with a 3-second timeout: the backend call races a sleep on the clock.
public final class TimeoutModel {
    public enum State: Equatable { case idle, loading, loaded(Int), timedOut }
    public private(set) var state = State.idle
    private let backend: Backend
    private let clock: any Clock<Duration>

    public init(backend: Backend, clock: any Clock<Duration>) {
        self.backend = backend
        self.clock = clock
    }

    public func load() {
        state = .loading
        Task {
            let backend = self.backend
            let clock = self.clock
            let outcome = await withTaskGroup(of: State?.self) { group in
                group.addTask { (try? await backend.fetch()).map(State.loaded) }
                group.addTask {
                    do { try await clock.sleep(for: .seconds(3)) } catch { return nil }
                    return .timedOut
                }
                let first = await group.next() ?? nil
                group.cancelAll()
                return first
            }
            state = outcome ?? .timedOut
        }
    }
}
