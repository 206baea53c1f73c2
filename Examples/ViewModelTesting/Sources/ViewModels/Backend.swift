/// What the view models call: off the main actor (an actor of its own), answering after a
/// delay on the injected clock, failing the first `failures` calls.
public actor Backend {
    public struct Unavailable: Error {}

    private let clock: any Clock<Duration>
    private let latency: Duration
    private var failures: Int
    public private(set) var calls = 0

    public init(clock: any Clock<Duration>, latency: Duration, failures: Int = 0) {
        self.clock = clock
        self.latency = latency
        self.failures = failures
    }

    public func fetch() async throws -> Int {
        calls += 1
        try await clock.sleep(for: latency)
        if failures > 0 {
            failures -= 1
            throw Unavailable()
        }
        return calls
    }
}
