/// Loads from a backend, retrying with exponential backoff (1 s, 2 s, 4 s) before giving up.
public final class LoaderModel {
    public enum State: Equatable { case idle, loading(attempt: Int), loaded(Int), failed }
    public private(set) var state = State.idle
    private let backend: Backend
    private let clock: any Clock<Duration>

    public init(backend: Backend, clock: any Clock<Duration>) {
        self.backend = backend
        self.clock = clock
    }

    @discardableResult
    public func load() -> Task<Void, Never> {
        Task {
            var delay = Duration.seconds(1)
            for attempt in 1...4 {
                state = .loading(attempt: attempt)
                do {
                    state = .loaded(try await backend.fetch())
                    return
                } catch {
                    if attempt == 4 { break }
                    do { try await clock.sleep(for: delay) } catch { return }
                    delay *= 2
                }
            }
            state = .failed
        }
    }
}
