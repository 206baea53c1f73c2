/// Holds an object weakly, so a test can prove it was released: `#expect(weak.object == nil)`.
/// (This target depends only on Disposables, so it keeps its own copy of this small box.)
final class Weak<Object: AnyObject>: @unchecked Sendable {
    // `@unchecked`: written once in init; reading a weak reference is thread-safe.
    weak var object: Object?

    init(_ object: Object) {
        self.object = object
    }
}

/// An object to capture in a closure and watch, through ``Weak``, for its release.
final class Token: Sendable {}
