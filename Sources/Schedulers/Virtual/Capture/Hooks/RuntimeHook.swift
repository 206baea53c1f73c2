@_spi(SchedulersInternal) import Disposables
import Synchronization

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// One of the Swift runtime's hook variables (`swift_task_enqueueGlobal_hook`,
/// `swift_task_getMainExecutor_hook`, …), shared with other libraries: ours is installed only
/// while someone needs it, and every hook it displaces is put back.
///
/// Each such variable holds one thin function pointer (`@convention(thin)`, one word, nil = 0),
/// which the runtime calls with its own implementation as the last argument. It is a plain
/// global, read by the runtime on every call and written by whoever wants it, with no protocol
/// between libraries. So this type works on the word and leaves the hook's signature to its
/// user, who passes our hook's bits in and casts the forwarding target's bits back.
///
/// The rules, chosen so that other libraries keep working (swift-concurrency-extras reads
/// "the enqueue hook is set" as "`withMainSerialExecutor` is in use", and puts *its own* hook
/// back on exit if it found any hook at its start):
///
/// - **Held, not left installed.** ``acquire()`` and ``release(_:)`` bracket each use (a
///   capture, a drive). The variable is process-wide while uses are per thread, so ours is
///   reference counted: the first acquisition installs it, the last release takes it out and
///   puts back what the first found (nil, usually). Tests capturing on several threads at once
///   share one installation.
/// - **Nesting with other libraries.** An acquisition that finds another hook where ours was
///   (installed by a scope that began inside ours: a `withMainSerialExecutor` in a capture)
///   installs ours over it and forwards to it, and its release puts that hook back, for the
///   scope still running around it.
/// - **What a release finds.** It puts back what its tenure found unless the variable is nil
///   (someone took every hook out: that stays). So a hook another library left over ours when
///   its scope ended inside ours (swift-concurrency-extras does, above) is replaced too: scopes
///   nest, and when ours ends, the variable is as it was when ours began.
/// - **Forwarding** goes to the hook ours displaced, or to the runtime's original: see
///   ``forward(to:else:)``. Only that, never a hook recorded earlier, so a hook whose owner has
///   since taken it out is not called: taking it out means writing over ours, and the next
///   acquisition records afresh what it finds.
///
/// The limit: scopes of different libraries must nest, as they do when tests that use them run
/// one at a time (swift-concurrency-extras asks for that too). A library that installs its hook
/// while ours is installed and keeps it after ours ends (no scope) has it replaced when the last
/// holder of ours releases.
///
/// Reuse: `RuntimeHook(variable: address, hook: unsafeBitCast(ourHook, to: UInt.self))`, with the
/// variable's address from the test support (``TestSupportLink``), nil where there is none;
/// bracket each use with `acquire`/`release`; in the hook, pass what it does not handle to
/// `forward(to:else:)`, casting the target's bits to the hook type.
final class RuntimeHook: Sendable {
    /// One acquisition, to hand back to ``release(_:)``.
    struct Tenure: Sendable {
        /// The hook ours replaced when this acquisition installed it (0 for none), or nil when
        /// ours was already installed.
        fileprivate let displaced: UInt?
        /// Whether this was the first acquisition of a tenure (the count went from 0 to 1).
        fileprivate let isFirst: Bool
        /// The forwarding target before this acquisition, restored with `displaced`.
        fileprivate let previousTarget: UInt
    }

    private struct State: Sendable {
        /// Acquisitions not yet released.
        var holders = 0
        /// What the variable held when the first of them began: put back by the last release.
        var base: UInt = 0
    }

    /// The runtime's variable, or nil where the runtime does not export it. Written under
    /// `state`'s lock by us; read and written by the runtime and other libraries as they please.
    nonisolated(unsafe) private let variable: UnsafeMutableRawPointer?
    /// Our hook's bits.
    private let ours: UInt
    private let state = Lock(State())
    /// The hook ours forwards to (0: the runtime's original). Read for every forwarded call, on
    /// any thread, so it is atomic rather than behind the lock.
    private let target = Atomic<UInt>(0)
    /// Set on a thread while ``forward(to:else:)`` calls the displaced hook.
    private let forwardingKey: pthread_key_t

    /// - Parameters:
    ///   - variable: the runtime's variable, nil where the runtime does not export it or the
    ///     binary does not link the test support; tests use a word of their own.
    ///   - hook: our hook, as `unsafeBitCast(hook, to: UInt.self)`.
    init(variable: UnsafeMutableRawPointer?, hook: UInt) {
        self.variable = variable
        self.ours = hook
        var key = pthread_key_t()
        let status = pthread_key_create(&key, nil)
        precondition(status == 0, "RuntimeHook: pthread_key_create failed with \(status)")
        forwardingKey = key
    }

    /// Whether the runtime exports the variable.
    var isAvailable: Bool { variable != nil }

    /// Makes sure ours is the installed hook until the matching ``release(_:)``.
    /// - Returns: nil where the runtime has no such variable.
    func acquire() -> Tenure? {
        guard let variable else { return nil }
        return state.withLock { state in
            let found = variable.load(as: UInt.self)
            state.holders += 1
            let isFirst = state.holders == 1
            if isFirst {
                // Ours found installed with nobody holding it: something put it back after our
                // last release. What was under it then is unknown, so forward to the original.
                state.base = found == ours ? 0 : found
                if found == ours { target.store(0, ordering: .releasing) }
            }
            guard found != ours else {
                return Tenure(displaced: nil, isFirst: isFirst, previousTarget: 0)
            }
            let previousTarget = target.load(ordering: .relaxed)
            target.store(found, ordering: .releasing)
            variable.storeBytes(of: ours, as: UInt.self)
            return Tenure(displaced: found, isFirst: isFirst, previousTarget: previousTarget)
        }
    }

    /// Ends an acquisition: the last one puts back what the first found; one that installed ours
    /// over another library's hook in the middle of a tenure puts that hook back.
    func release(_ tenure: Tenure) {
        guard let variable else { return }
        state.withLock { state in
            precondition(state.holders > 0, "RuntimeHook.release(_:): more releases than acquisitions")
            state.holders -= 1
            let current = variable.load(as: UInt.self)
            if state.holders == 0 {
                // nil: someone took every hook out, which stays so.
                if current != 0 { variable.storeBytes(of: state.base, as: UInt.self) }
                state.base = 0
                target.store(0, ordering: .releasing)
            } else if let displaced = tenure.displaced, !tenure.isFirst {
                if current != 0 { variable.storeBytes(of: displaced, as: UInt.self) }
                target.store(tenure.previousTarget, ordering: .releasing)
            }
        }
    }

    /// Hands a call ours does not handle on: `hook` gets the bits of the hook ours displaced
    /// (cast them to the hook's type and call it with the runtime's original); `original` runs
    /// where there is none, and on a thread that is already inside `hook` through here (a
    /// displaced hook that calls the one it replaced, which is ours), so that no call goes
    /// round in a circle.
    @inline(__always)
    func forward<R>(to hook: (UInt) -> R, else original: () -> R) -> R {
        let next = target.load(ordering: .acquiring)
        guard next != 0, pthread_getspecific(forwardingKey) == nil else { return original() }
        // Restored rather than cleared, so nesting can never drop an outer setting.
        let outer = pthread_getspecific(forwardingKey)
        pthread_setspecific(forwardingKey, UnsafeRawPointer(bitPattern: 1))
        defer { pthread_setspecific(forwardingKey, outer) }
        return hook(next)
    }
}
