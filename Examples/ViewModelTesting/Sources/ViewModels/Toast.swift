/// A message shown for 2 seconds, then hidden by itself; a newer message restarts the wait.
public final class Toast {
    public private(set) var message: String?
    private var hide: Task<Void, Never>?
    private let clock: any Clock<Duration>

    public init(clock: any Clock<Duration>) {
        self.clock = clock
    }

    public func show(_ message: String) {
        self.message = message
        hide?.cancel()
        hide = Task {
            do { try await clock.sleep(for: .seconds(2)) } catch { return }
            self.message = nil
        }
    }
}
