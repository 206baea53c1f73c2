@_spi(SchedulersInternal) import Disposables
import Foundation

/// The warnings for main-actor code that a test cannot make exact, given once per scheduler.
enum MainActorWarning {
    /// A captured main-actor job came due while the scheduler was driven synchronously from a
    /// thread that does not hold the main actor.
    static func drivenOffTheMainActor(core: VirtualTimeCore) {
        guard core.warnOnce(.drivenOffTheMainActor) else { return }
        Warning.emit("""
            a main-actor job of a task started inside withCapturedTasks came due while the \
            scheduler was driven off the main actor, so it ran outside virtual time; drive from the \
            main actor (a @MainActor test) or with `await scheduler.clock.advance(by:)`.
            A synchronous drive cannot hand the job to the main actor: it went to the main queue, \
            which runs it whenever it can; `await scheduler.clock.advance(by:)` hops to the main \
            actor for such jobs. (Once per scheduler.)
            """)
    }
}
