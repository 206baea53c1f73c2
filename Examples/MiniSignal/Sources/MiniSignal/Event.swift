/// What a signal sends: any number of values, then at most one terminating event.
public enum Event<Value: Sendable>: Sendable {
    case value(Value)
    case failed(any Error)
    case completed

    /// Whether this event ends the signal.
    public var isTerminating: Bool {
        if case .value = self { return false }
        return true
    }
}
