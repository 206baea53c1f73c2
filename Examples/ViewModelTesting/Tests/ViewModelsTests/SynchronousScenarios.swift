import Foundation
import Schedulers
import ViewModels

/// Each scenario as an app developer writes it in the synchronous shape: on the main actor,
/// inside `scheduler.withCapturedTasks { }`, driving with `scheduler.advance(by:)`. Each returns
/// whether everything happened exactly on time: nothing a moment early, nothing late.
@MainActor enum SynchronousScenarios {
    static func search() -> Bool {
        let scheduler = TestScheduler()
        return scheduler.withCapturedTasks {
            // Made inside the capture: its init starts the task that listens to the queries.
            let model = SearchModel(clock: scheduler.clock, catalogue: ["swift", "swiftui", "rust"])
            model.queryChanged("s")
            scheduler.advance(by: 0.2)
            model.queryChanged("sw")
            scheduler.advance(by: 0.299)
            let early = model.results == [] && model.searches == 0
            scheduler.advance(by: 0.001)
            let onTime = model.results == ["swift", "swiftui"] && model.searches == 1
            model.close()
            scheduler.advance(by: 1)
            return early && onTime && model.searches == 1 && scheduler.pendingCount == 0
        }
    }

    static func toast() -> Bool {
        let scheduler = TestScheduler()
        let toast = Toast(clock: scheduler.clock)
        return scheduler.withCapturedTasks {
            toast.show("Saved")
            scheduler.advance(by: 1.999)
            let shown = toast.message == "Saved"
            scheduler.advance(by: 0.001)
            let hidden = toast.message == nil
            toast.show("A")
            scheduler.advance(by: 1)
            toast.show("B")
            scheduler.advance(by: 1.999)
            let restarted = toast.message == "B"
            scheduler.advance(by: 0.001)
            return shown && hidden && restarted && toast.message == nil && scheduler.pendingCount == 0
        }
    }

    static func retryWithBackoff() -> Bool {
        let scheduler = TestScheduler()
        let backend = Backend(clock: scheduler.clock, latency: .milliseconds(500), failures: 2)
        let loader = LoaderModel(backend: backend, clock: scheduler.clock)
        return scheduler.withCapturedTasks {
            loader.load()
            scheduler.advance(by: 1.499)  // attempt 1 failed at 0.5 s; waiting 1 s
            let first = loader.state == .loading(attempt: 1)
            scheduler.advance(by: 0.001)  // 1.5 s: attempt 2
            let second = loader.state == .loading(attempt: 2)
            scheduler.advance(by: 2.499)  // failed at 2 s; waiting 2 s until 4 s
            let stillSecond = loader.state == .loading(attempt: 2)
            scheduler.advance(by: 0.001)  // 4 s: attempt 3
            let third = loader.state == .loading(attempt: 3)
            scheduler.advance(by: 0.5)    // 4.5 s: it answers
            return first && second && stillSecond && third && loader.state == .loaded(3)
                && scheduler.pendingCount == 0
        }
    }

    static func polling() -> Bool {
        let scheduler = TestScheduler()
        let backend = Backend(clock: scheduler.clock, latency: .milliseconds(100))
        let model = PollingModel(backend: backend, clock: scheduler.clock)
        return scheduler.withCapturedTasks {
            model.start()
            scheduler.advance(by: 0.099)
            let early = model.values == []
            scheduler.advance(by: 0.001)  // 0.1 s: first answer
            let first = model.values == [1]
            scheduler.advance(by: 5.099)  // 5.199 s
            let between = model.values == [1]
            scheduler.advance(by: 0.001)  // 5.2 s: second answer
            let second = model.values == [1, 2]
            model.stop()
            scheduler.advance(by: 60)
            return early && first && between && second && model.values == [1, 2] && scheduler.pendingCount == 0
        }
    }

    static func timeout() -> Bool {
        let scheduler = TestScheduler()
        let slow = TimeoutModel(backend: Backend(clock: scheduler.clock, latency: .seconds(5)), clock: scheduler.clock)
        let fast = TimeoutModel(backend: Backend(clock: scheduler.clock, latency: .seconds(2)), clock: scheduler.clock)
        return scheduler.withCapturedTasks {
            slow.load()
            fast.load()
            scheduler.advance(by: 1.999)
            let waiting = slow.state == .loading && fast.state == .loading
            scheduler.advance(by: 0.001)  // 2 s: the fast one answers
            let fastLoaded = fast.state == .loaded(1) && slow.state == .loading
            scheduler.advance(by: 0.999)
            let slowWaiting = slow.state == .loading
            scheduler.advance(by: 0.001)  // 3 s: the slow one times out
            return waiting && fastLoaded && slowWaiting && slow.state == .timedOut && scheduler.pendingCount == 0
        }
    }
}
