import Clocks
import ConcurrencyExtras
import Foundation
import Schedulers

/// The view-model debounce test, per run: a `@MainActor` search model whose
/// `queryChanged` cancels its previous `Task {}` and starts one that sleeps 300 ms on an injected
/// clock before publishing results; the test types "s", waits 200 ms, types "sw", and checks that
/// nothing arrives at 299 ms and that "sw" arrives at exactly 300 ms. Three ways:
/// - ours, synchronous: `scheduler.withCapturedTasks { … scheduler.advance(by:) … }` on the main actor;
/// - ours, asynchronous: `await scheduler.withCapturedTasks { … await scheduler.clock.advance(by:) … }`;
/// - swift-clocks' `TestClock` in its recommended pattern: `withMainSerialExecutor`,
///   `await clock.advance(by:)`.
/// Each run returns whether it was exact.
@MainActor
public enum ViewModelDebounceWorkload {
    @MainActor final class SearchModel {
        var results: [String] = []
        private var search: Task<Void, Never>?
        private let clock: any Clock<Duration>
        init(clock: any Clock<Duration>) { self.clock = clock }
        func queryChanged(_ query: String) {
            search?.cancel()
            search = Task {
                do { try await clock.sleep(for: .milliseconds(300)) } catch { return }
                results = [query]
            }
        }
    }

    /// Ours, the synchronous shape. Call on the main thread.
    public static func oursSynchronous() -> Bool {
        let scheduler = TestScheduler()
        let model = SearchModel(clock: scheduler.clock)
        return scheduler.withCapturedTasks {
            model.queryChanged("s")
            scheduler.advance(by: 0.2)
            model.queryChanged("sw")
            scheduler.advance(by: 0.299)
            let early = model.results
            scheduler.advance(by: 0.001)
            return early == [] && model.results == ["sw"] && scheduler.pendingCount == 0
        }
    }

    /// Ours, the asynchronous shape.
    public static func oursAsynchronous() async -> Bool {
        let scheduler = TestScheduler()
        let model = SearchModel(clock: scheduler.clock)
        return await scheduler.withCapturedTasks {
            model.queryChanged("s")
            await scheduler.clock.advance(by: .milliseconds(200))
            model.queryChanged("sw")
            await scheduler.clock.advance(by: .milliseconds(299))
            let early = model.results
            await scheduler.clock.advance(by: .milliseconds(1))
            return early == [] && model.results == ["sw"] && scheduler.pendingCount == 0
        }
    }

    /// swift-clocks' `TestClock`, in its recommended pattern.
    public static func testClock() async -> Bool {
        var exact = false
        await withMainSerialExecutor {
            let clock = TestClock()
            let model = SearchModel(clock: clock)
            model.queryChanged("s")
            await clock.advance(by: .milliseconds(200))
            model.queryChanged("sw")
            await clock.advance(by: .milliseconds(299))
            let early = model.results
            await clock.advance(by: .milliseconds(1))
            exact = early == [] && model.results == ["sw"]
        }
        return exact
    }
}
