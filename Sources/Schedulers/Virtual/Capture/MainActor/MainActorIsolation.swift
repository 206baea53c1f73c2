import Foundation

/// Whether the calling thread holds the main actor: it runs main-queue work (where Swift
/// Testing and `dispatchMain()` run the main actor on Linux, on a worker thread: Platform
/// notes, item 7), or it is the main thread itself (XCTest's test methods, Apple's run loop).
///
/// Main-actor jobs captured into virtual time run on the thread that drives the scheduler; they
/// may only run there when that thread holds the main actor, or they would race with the main
/// actor's real work.
enum MainActorIsolation {
    static var isHeld: Bool {
        MainInlineScheduler.isOnMainQueue || Thread.isMainThread
    }
}
