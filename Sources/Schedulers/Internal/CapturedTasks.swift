@_spi(SchedulersInternal) import Disposables

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Which ``TestScheduler``, if any, captures a global job enqueued on this thread right now.
///
/// Two rules, in this order:
/// 1. Work a capturing scheduler is running (its actions and jobs run as `Scheduler.current`):
///    that scheduler. So a task stays with the scheduler that ran it, even when a different
///    scheduler's capture is active on the driving thread, and even after `withCapturedTasks`
///    has returned.
/// 2. Else, the innermost `withCapturedTasks` running on this thread.
///
/// Both are thread-local reads (a pthread key costs a few nanoseconds, Platform notes, item 10): the
/// hook asks for every global job in the process. The registry lookup of rule 1 happens only
/// when a scheduler is running on the thread.
enum CapturedTasks {
    /// The innermost capturing scheduler on this thread, unretained: it is set only for the
    /// duration of `withCapturedTasks`, which keeps the scheduler alive meanwhile.
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let status = pthread_key_create(&key, nil)
        precondition(status == 0, "withCapturedTasks: pthread_key_create failed with \(status)")
        return key
    }()

    /// The raw slot, so a capture can restore exactly what it found.
    static var slot: UnsafeMutableRawPointer? {
        get { pthread_getspecific(key) }
        set { pthread_setspecific(key, newValue) }
    }

    /// Schedulers that have run `withCapturedTasks` and are still alive, by address. The weak
    /// reference tells a live entry from a dead scheduler's (whose address may be reused); it is
    /// only loaded when the address matches. A test makes few at a time; dead entries go at each
    /// insertion.
    private static let registry = Lock([RegisteredScheduler]())

    static func register(_ scheduler: TestScheduler) {
        let address = UInt(bitPattern: Unmanaged.passUnretained(scheduler).toOpaque())
        registry.withLock { entries in
            entries.removeAll { $0.reference.scheduler == nil }
            if !entries.contains(where: { $0.address == address }) {
                entries.append(RegisteredScheduler(address: address, reference: SchedulerReference(scheduler)))
            }
        }
    }

    private static func isRegistered(_ address: UInt) -> Bool {
        registry.withLock { entries in
            entries.contains { $0.address == address && $0.reference.scheduler != nil }
        }
    }

    /// The scheduler that captures a global job enqueued here and now (unretained: it is alive
    /// while it runs work or while its `withCapturedTasks` runs on this thread), or nil.
    static func capturingScheduler() -> Unmanaged<TestScheduler>? {
        if let running = CurrentScheduler.slot, UInt(bitPattern: running) > 2 {
            // No retain of the scheduler here: the hook runs for every job it runs.
            let isTestScheduler = Unmanaged<Scheduler>.fromOpaque(running)._withUnsafeGuaranteedRef {
                type(of: $0) == TestScheduler.self
            }
            if isTestScheduler, isRegistered(UInt(bitPattern: running)) {
                return Unmanaged<TestScheduler>.fromOpaque(running)
            }
        }
        guard let capturing = slot else { return nil }
        return Unmanaged<TestScheduler>.fromOpaque(capturing)
    }
}

private struct RegisteredScheduler: Sendable {
    let address: UInt
    let reference: SchedulerReference
}
