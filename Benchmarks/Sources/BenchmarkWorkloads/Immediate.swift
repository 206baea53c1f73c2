import Foundation
import Schedulers

/// Workload 3: the immediate scheduler's `schedule` through a `Scheduler` reference, and a read
/// of `Scheduler.current`, against a direct call and against what RAC paid per action, a read of
/// `Thread.current.threadDictionary`. Each function does `operations` of them.
public enum ImmediateWorkload {
    /// `Scheduler.immediate.schedule(action)`, the scheduler seen only as a `Scheduler`.
    public static func oursSchedule(operations: Int) {
        let scheduler = opaque(Scheduler.immediate)
        let counter = Counter()
        let action: @Sendable () -> Void = { counter.value &+= 1 }
        for _ in 0..<operations { scheduler.schedule(action) }
        consume(counter.value)
    }

    /// The limit: the same action called directly.
    public static func directCall(operations: Int) {
        let counter = Counter()
        let action = opaque({ @Sendable in counter.value &+= 1 })
        for _ in 0..<operations { action() }
        consume(counter.value)
    }

    /// `Scheduler.current`, read from inside an action of a scheduler (so it is set).
    public static func oursCurrent(operations: Int, on scheduler: Scheduler) {
        scheduler.performAsCurrentScheduler {
            var found = 0
            for _ in 0..<operations where Scheduler.current != nil { found &+= 1 }
            consume(found)
        }
    }

    /// RAC: `NSThread.currentThread.threadDictionary[RACSchedulerCurrentSchedulerKey]`.
    public static func threadDictionary(operations: Int) {
        let key = "RACSchedulerCurrentSchedulerKey"
        let dictionary = Thread.current.threadDictionary
        dictionary[key] = Scheduler.immediate
        defer { dictionary.removeObject(forKey: key) }
        var found = 0
        for _ in 0..<operations where Thread.current.threadDictionary[key] != nil { found &+= 1 }
        consume(found)
    }

    /// `Scheduler.current === scheduler`, `operations` times: on the calling thread as it is
    /// (`inAction == false`: on the main thread, with `scheduler` being `Scheduler.main`), or
    /// inside an action of `scheduler`.
    public static func oursCurrentIdentity(operations: Int, of scheduler: Scheduler, inAction: Bool) {
        let body = {
            var found = 0
            for _ in 0..<operations where Scheduler.current === scheduler { found &+= 1 }
            consume(found)
        }
        if inAction { scheduler.performAsCurrentScheduler(body) } else { body() }
    }

    /// `scheduler.isCurrent`, `operations` times, like ``oursCurrentIdentity(operations:of:inAction:)``.
    public static func oursIsCurrent(operations: Int, of scheduler: Scheduler, inAction: Bool) {
        let body = {
            var found = 0
            for _ in 0..<operations where scheduler.isCurrent { found &+= 1 }
            consume(found)
        }
        if inAction { scheduler.performAsCurrentScheduler(body) } else { body() }
    }

    /// The limit for `Scheduler.current`: `pthread_getspecific` of a key that is set, compared
    /// with a pointer.
    public static func pthreadGetspecific(operations: Int) {
        let expected = UnsafeMutableRawPointer(bitPattern: 0x1000)
        pthread_setspecific(limitKey, expected)
        var found = 0
        for _ in 0..<operations where pthread_getspecific(limitKey) == expected { found &+= 1 }
        consume(found)
        pthread_setspecific(limitKey, nil)
    }

    private static let limitKey: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    @inline(never)
    private static func opaque<T>(_ value: T) -> T { value }
}
