@_spi(SchedulersInternal) import Disposables
import Foundation

/// The warnings for main-actor code that a test cannot make exact, printed once per scheduler.
enum MainActorWarning {
    /// A captured main-actor job came due while the scheduler was driven synchronously from a
    /// thread that does not hold the main actor.
    static func drivenOffTheMainActor(core: VirtualTimeCore) {
        guard core.warnOnce(.drivenOffTheMainActor) else { return }
        Warning.emit("""
            a main-actor job of a task started inside \
            TestScheduler.withCapturedTasks came due while the scheduler was driven from a thread \
            that is not the main actor's, so it cannot run in virtual time: it was sent to the \
            main queue, which runs it whenever it can. Drive the scheduler from the main actor \
            (make the test @MainActor and call advance inside withCapturedTasks), or drive it with \
            `await scheduler.clock.advance(by:)`, which hops to the main actor for such jobs. \
            (Printed once per scheduler.)
            """)
    }
}
