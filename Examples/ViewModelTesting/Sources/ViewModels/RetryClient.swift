/// A client that retries a request with exponential backoff (1 s, 2 s, 4 s) on the real clock,
/// as code that injects nothing does: `Task.sleep(nanoseconds:)`. Off the main actor.
public nonisolated struct RetryClient: Sendable {
    public struct GaveUp: Error {}

    private let request: @Sendable () async throws -> Int
    private let attempts: Int

    public init(attempts: Int = 4, request: @escaping @Sendable () async throws -> Int) {
        self.attempts = attempts
        self.request = request
    }

    public func fetch() async throws -> Int {
        var delay: UInt64 = 1_000_000_000
        for attempt in 1...attempts {
            do {
                return try await request()
            } catch where attempt < attempts {
                try await Task.sleep(nanoseconds: delay)
                delay *= 2
            }
        }
        throw GaveUp()
    }
}
