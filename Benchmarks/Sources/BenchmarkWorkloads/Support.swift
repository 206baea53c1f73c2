import Dispatch
import Foundation

/// A seeded generator (SplitMix64), so every run schedules the same virtual times and removes
/// disposables in the same order: the allocation counts the CI gate checks do not depend on luck.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) {
        state = seed
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// A counter shared by the actions of one run. Only ever touched by one thread at a time (a
/// serial queue, or the thread that drives a loop), so it needs no lock.
public final class Counter: @unchecked Sendable {
    public var value = 0
    public init() {}
}

/// Keeps the optimiser from deleting work whose result is otherwise unused.
@inline(never)
public func consume<T>(_ value: T) {
    withExtendedLifetime(value) {}
}

/// The action every queue workload schedules: it does nothing, so what is measured is the
/// scheduling and running machinery. A non-capturing closure, so it allocates nothing itself.
public let noop: @Sendable () -> Void = {}

/// Resident memory of this process right now, in bytes (Linux `/proc/self/statm`; 0 elsewhere).
public func residentMemoryBytes() -> Int {
    #if os(Linux)
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = text.split(separator: " ")
    guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    #else
    return 0
    #endif
}

/// Blocks until `body` calls the closure it is handed. For the end of a queue workload.
@inline(__always)
func waitFor(_ body: (_ done: @escaping @Sendable () -> Void) -> Void) {
    let semaphore = DispatchSemaphore(value: 0)
    body { semaphore.signal() }
    semaphore.wait()
}
