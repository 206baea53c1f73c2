#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The calling thread's identity as a plain word, never 0, for "is it me?" checks stored in an
/// `Atomic<UInt>` (0 meaning nobody). Unique among live threads; a finished thread's identity
/// may be reused, so a holder clears it before its thread can finish.
///
/// `pthread_t` is an integer on glibc and a pointer on Darwin and musl; reading its bytes as a
/// word is one spelling for all of them, and compiles to the same single call to `pthread_self`
/// as `UInt(pthread_self())` did on Linux (`swiftc -O -emit-assembly`: the two functions were
/// merged into one), so no platform needs a branch of its own (Platform notes, "Platform branches").
func currentThreadIdentity() -> UInt {
    withUnsafeBytes(of: pthread_self()) { $0.load(as: UInt.self) }
}
