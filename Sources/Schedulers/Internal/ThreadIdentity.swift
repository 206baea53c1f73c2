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
func currentThreadIdentity() -> UInt {
    #if canImport(Darwin)
    UInt(bitPattern: pthread_self())
    #else
    UInt(pthread_self())
    #endif
}
