#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The thread-local slot behind `Scheduler.current`.
///
/// RAC kept the current scheduler in `NSThread.threadDictionary`, which costs ≈ 300 ns a read
/// and ≈ 1 µs a write here (FACTS.md item 10): more than the rest of a `schedule`. A pthread key
/// costs a few nanoseconds. The slot holds an *unretained* pointer: it is only ever set by
/// `Scheduler.performAsCurrentScheduler`, which runs on the scheduler itself and restores the
/// previous value before returning, so the scheduler outlives every moment the pointer is set.
enum CurrentScheduler {
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let status = pthread_key_create(&key, nil)
        precondition(status == 0, "Scheduler.current: pthread_key_create failed with \(status)")
        return key
    }()

    /// The raw slot, so callers can restore exactly what they found.
    @inline(__always)
    static var slot: UnsafeMutableRawPointer? {
        get { pthread_getspecific(key) }
        set { pthread_setspecific(key, newValue) }
    }

    /// The scheduler whose action is running on this thread, if any.
    @inline(__always)
    static var value: Scheduler? {
        guard let slot else { return nil }
        return Unmanaged<Scheduler>.fromOpaque(slot).takeUnretainedValue()
    }
}
