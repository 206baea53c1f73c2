/// A client that retries a request with exponential backoff (1 s, 2 s, 4 s) on the real clock,
/// as code that injects nothing does: `Task.sleep(nanoseconds:)`. Off the main actor. After
/// `attempts` failures it throws the last one.
public nonisolated struct RetryClient: Sendable {
    private let request: @Sendable () async throws -> Int
    private let attempts: Int

    public init(attempts: Int = 4, request: @escaping @Sendable () async throws -> Int) {
        precondition(attempts >= 1, "RetryClient(attempts:): at least one attempt, got \(attempts)")
        self.attempts = attempts
        self.request = request
    }

    public func fetch() async throws -> Int {
        var delay: UInt64 = 1_000_000_000
        for _ in 1..<attempts {
            do {
                return try await request()
            } catch {
                try await Task.sleep(nanoseconds: delay)
                delay *= 2
            }
        }
        return try await request()
    }
}
