import Synchronization

/// The lock every type in this package keeps its mutable state in: a `Synchronization.Mutex`
/// that ThreadSanitizer can see through.
///
/// On Linux, `Mutex`'s lock and unlock live in the uninstrumented standard library, so TSan sees
/// no synchronisation and reports "Swift access race" on any contended, correctly locked state
/// (measured: 5 false reports in a 3-thread counter under `Mutex`, none with this type). When the
/// TSan runtime is present, this type tells it about each acquire and release; otherwise the
/// extra cost is one load and a not-taken branch on each side. So the package's own TSan runs,
/// and its users', report real races only.
///
/// It is a class so that the annotations have a stable address (the object) without
/// `withUnsafePointer`, which kept `withLock` from being specialised: a struct version cost a
/// generic-metadata lookup per call (callgrind: ~4,800 instructions per recursive iteration
/// instead of ~1,500). That is one allocation per owning object, none per operation.
///
/// It is SPI, not `package`: measured, an `@inlinable package` method is not inlined into the
/// Schedulers module when this package is built as a dependency (as every user builds it), so
/// every `withLock` paid a generic call and metadata lookups. SPI-public `@inlinable` is
/// specialised. Import it with `@_spi(SchedulersInternal) import Disposables`.
///
/// `State` and results are `Sendable` because everything kept here is shared across threads.
/// Like `Mutex`, it is not recursive: never call out to user code from inside `withLock`.
@_spi(SchedulersInternal)
public final class Lock<State: Sendable>: Sendable {
    @usableFromInline
    let mutex: Mutex<State>
    // Copied from the lazily initialised globals once per lock, so that a lock operation does
    // not pay a `swift_once` check for each (measured: ~60 instructions per recursive iteration).
    @usableFromInline
    let acquire: ThreadSanitizer.Annotation?
    @usableFromInline
    let release: ThreadSanitizer.Annotation?

    public init(_ initialState: State) {
        mutex = Mutex(initialState)
        acquire = ThreadSanitizer.acquire
        release = ThreadSanitizer.release
    }

    /// Runs `body` with exclusive access to the state.
    @inlinable @inline(__always)
    public func withLock<Result: Sendable>(_ body: (inout State) throws -> Result) rethrows -> Result {
        try mutex.withLock { state in
            if let acquire { acquire(UnsafeRawPointer(Unmanaged.passUnretained(self).toOpaque())) }
            defer { if let release { release(UnsafeRawPointer(Unmanaged.passUnretained(self).toOpaque())) } }
            return try body(&state)
        }
    }
}

/// ThreadSanitizer's annotation entry points, when its runtime is linked into the process.
@_spi(SchedulersInternal)
public enum ThreadSanitizer {
    public typealias Annotation = @convention(c) (UnsafeRawPointer?) -> Void

    /// `__tsan_acquire`: what follows happens after the matching release.
    public static let acquire: Annotation? = lookUp("__tsan_acquire")

    /// `__tsan_release`: what came before happens before the matching acquire.
    public static let release: Annotation? = lookUp("__tsan_release")

    /// Absent (nil) without the TSan runtime, or when hidden (``RuntimeSymbol``): the lock is
    /// then a plain `Mutex`, correct, and invisible to a TSan that is loaded.
    private static func lookUp(_ name: String) -> Annotation? {
        RuntimeSymbol.address(of: name).map { unsafeBitCast($0, to: Annotation.self) }
    }
}
