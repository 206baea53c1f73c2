import CoreFoundation
import Foundation

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// How many run loops the main thread has entered and not yet left inside a synchronous
/// `withCapturedTasks`: the way to tell the body's own code from the work a run loop spun inside
/// it runs (XCTest's `wait(for:)`, `RunLoopBlocker`, `RunLoop.main.run(until:)`).
///
/// Why: XCTest on Linux runs a test method inside a main-queue block on the main thread, and a
/// run loop spun there drains further main-queue blocks: the runtime's main-actor jobs, among
/// them those of tasks started before the capture. That code runs in no task, on the main
/// queue, on the capture's own thread, exactly like the body's own code; only the nesting tells
/// them apart. A `CFRunLoopObserver` counts the entries and
/// exits (measured on Linux: a block drained by `RunLoop.run(until:)` sees depth 1).
///
/// Observed on the main thread only: elsewhere a spun run loop drains no main-actor work (Swift
/// Testing's `@MainActor` worker drains the main queue, not a run loop), and the observer would
/// cost every capture a run loop of its own.
enum RunLoopNesting {
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let status = pthread_key_create(&key, nil)
        precondition(status == 0, "withCapturedTasks: pthread_key_create failed with \(status)")
        return key
    }()

    /// Run loops entered and not left on this thread while an observer counted them.
    static var depth: Int {
        get { Int(bitPattern: pthread_getspecific(key)) }
        set { pthread_setspecific(key, UnsafeRawPointer(bitPattern: newValue)) }
    }

    /// Runs `body`, counting the run loops entered on this thread meanwhile (main thread only).
    static func counting<R>(_ body: () throws -> R) rethrows -> R {
        guard Thread.isMainThread else { return try body() }
        // kCFRunLoopEntry (1 << 0) and kCFRunLoopExit (1 << 7): the named constants are not
        // imported on Linux.
        let entry: CFOptionFlags = 1, exit: CFOptionFlags = 1 << 7
        let observer = CFRunLoopObserverCreateWithHandler(nil, entry | exit, true, 0) { _, activity in
            depth += CFOptionFlags(activity.rawValue) == entry ? 1 : -1
        }
        let runLoop = CFRunLoopGetCurrent()
        CFRunLoopAddObserver(runLoop, observer, kCFRunLoopCommonModes)
        defer { CFRunLoopRemoveObserver(runLoop, observer, kCFRunLoopCommonModes) }
        return try body()
    }
}
