/// Holds an object weakly, so a test can prove it was released: `#expect(weak.object == nil)`.
public final class Weak<Object: AnyObject>: @unchecked Sendable {
    // `@unchecked`: written once in init; reading a weak reference is thread-safe.
    public weak var object: Object?

    public init(_ object: Object) {
        self.object = object
    }
}

/// An object to capture in a closure and watch, through ``Weak``, for its release.
public final class Token: Sendable {
    public init() {}
}
