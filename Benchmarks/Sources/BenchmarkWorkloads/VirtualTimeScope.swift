import ConcurrencyExtras
import Foundation
import Schedulers

/// What the `.virtualTime` trait adds to each test (SchedulersTestSupport's
/// `VirtualTimeTrait.provideScope`): a new `TestScheduler`, and an automatically advancing
/// capture around the test's body, set up and torn down. The body is empty, so the figure is
/// the trait's own cost per test. The peer is what a swift-clocks user wraps each test in:
/// swift-concurrency-extras' `withMainSerialExecutor`. Both run `tests` tests in a row on the
/// main actor, as a `@MainActor` test does (call from the main thread).
public enum VirtualTimeScopeWorkload {
    public static func withTrait(tests: Int) {
        AsyncDebounceWorkload.runOnMainActor {
            for _ in 0..<tests {
                let scheduler = TestScheduler(startDate: Date(timeIntervalSinceReferenceDate: 0))
                await scheduler.withCapturedTasks(advancing: .automatically) {
                    await emptyBody()
                }
            }
            return true
        }
    }

    public static func withMainSerialExecutor(tests: Int) {
        AsyncDebounceWorkload.runOnMainActor {
            for _ in 0..<tests {
                await ConcurrencyExtras.withMainSerialExecutor {
                    await emptyBody()
                }
            }
            return true
        }
    }

    /// A test body that does nothing, not inlined away.
    @inline(never)
    static func emptyBody() async {}
}
