import Synchronization

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

#if SCHEDULERS_TSAN_LOCKS
/// The lock every type in this package keeps its state in: `Mutex`, except in a build for
/// ThreadSanitizer (`swift test --sanitize=thread -Xswiftc -DSCHEDULERS_TSAN_LOCKS`).
///
/// On Linux `Synchronization.Mutex` locks with futex calls inside the uninstrumented standard
/// library, so ThreadSanitizer sees no happens-before edge and reports every contended access
/// as a race (a 10-line program shows it). In that build this stand-in, with the same
/// `withLock`, uses a `pthread_mutex_t`, which ThreadSanitizer intercepts.
package struct Lock<Value: ~Copyable>: ~Copyable, @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let value: UnsafeMutablePointer<Value>

    package init(_ initialValue: consuming sending Value) {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        value = .allocate(capacity: 1)
        value.initialize(to: initialValue)
    }

    deinit {
        value.deinitialize(count: 1)
        value.deallocate()
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    package borrowing func withLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value.pointee)
    }
}
#else
/// The lock every type in this package keeps its state in: `Synchronization.Mutex`. (A build
/// with `-DSCHEDULERS_TSAN_LOCKS` swaps in a pthread mutex that ThreadSanitizer can see.)
package typealias Lock<Value: ~Copyable> = Mutex<Value>
#endif
