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

    // The probes below are each one out-of-line call per operation. Inlined into a loop that
    // calls nothing else, a read of `Scheduler.current`'s slot (a plain C thread-local) is hoisted
    // out of the loop and the loop measures nothing; user code calls other things between two
    // checks, so each check pays its read. Every system pays the same call.

    /// `Scheduler.current != nil`, `operations` times, each through an out-of-line probe, inside
    /// an action of `scheduler` (so it is set).
    public static func probedCurrentRead(operations: Int, on scheduler: Scheduler) {
        scheduler.performAsCurrentScheduler {
            var found = 0
            for _ in 0..<operations where currentIsSet() { found &+= 1 }
            consume(found)
        }
    }

    /// `Scheduler.current === scheduler`, `operations` times, each through an out-of-line probe:
    /// on the calling thread as it is, or inside an action of `scheduler`.
    public static func probedCurrentIdentity(operations: Int, of scheduler: Scheduler, inAction: Bool) {
        let body = {
            var found = 0
            for _ in 0..<operations where currentIs(scheduler) { found &+= 1 }
            consume(found)
        }
        if inAction { scheduler.performAsCurrentScheduler(body) } else { body() }
    }

    /// `scheduler.isCurrent`, like ``probedCurrentIdentity(operations:of:inAction:)``.
    public static func probedIsCurrent(operations: Int, of scheduler: Scheduler, inAction: Bool) {
        let body = {
            var found = 0
            for _ in 0..<operations where isCurrent(scheduler) { found &+= 1 }
            consume(found)
        }
        if inAction { scheduler.performAsCurrentScheduler(body) } else { body() }
    }

    /// The limit, through the same kind of probe: `pthread_getspecific` of a key that is set,
    /// compared with a pointer.
    public static func probedPthreadGetspecific(operations: Int) {
        let expected = UnsafeMutableRawPointer(bitPattern: 0x1000)
        let key = limitKey
        pthread_setspecific(key, expected)
        var found = 0
        for _ in 0..<operations where specificIs(key, expected) { found &+= 1 }
        consume(found)
        pthread_setspecific(limitKey, nil)
    }

    @inline(never)
    static func currentIsSet() -> Bool { Scheduler.current != nil }

    @inline(never)
    static func currentIs(_ scheduler: Scheduler) -> Bool { Scheduler.current === scheduler }

    @inline(never)
    static func isCurrent(_ scheduler: Scheduler) -> Bool { scheduler.isCurrent }

    @inline(never)
    static func specificIs(_ key: pthread_key_t, _ expected: UnsafeMutableRawPointer?) -> Bool {
        pthread_getspecific(key) == expected
    }

    private static let limitKey: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    @inline(never)
    private static func opaque<T>(_ value: T) -> T { value }
}
