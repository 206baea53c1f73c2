import Foundation
import Schedulers
import ViewModels

/// The same scenarios in the asynchronous shape, the habit of swift-clocks' `TestClock` users:
/// `await scheduler.withCapturedTasks { }`, driving with `await scheduler.clock.advance(by:)`.
@MainActor enum AsynchronousScenarios {
    static func search() async -> Bool {
        let scheduler = TestScheduler()
        return await scheduler.withCapturedTasks {
            // Made inside the capture: its init starts the task that listens to the queries.
            let model = SearchModel(clock: scheduler.clock, catalogue: ["swift", "swiftui", "rust"])
            model.queryChanged("s")
            await scheduler.clock.advance(by: .milliseconds(200))
            model.queryChanged("sw")
            await scheduler.clock.advance(by: .milliseconds(299))
            let early = model.results == [] && model.searches == 0
            await scheduler.clock.advance(by: .milliseconds(1))
            let onTime = model.results == ["swift", "swiftui"] && model.searches == 1
            model.close()
            await scheduler.clock.advance(by: .milliseconds(1000))
            return early && onTime && model.searches == 1 && scheduler.pendingCount == 0
        }
    }

    static func toast() async -> Bool {
        let scheduler = TestScheduler()
        let toast = Toast(clock: scheduler.clock)
        return await scheduler.withCapturedTasks {
            toast.show("Saved")
            await scheduler.clock.advance(by: .milliseconds(1999))
            let shown = toast.message == "Saved"
            await scheduler.clock.advance(by: .milliseconds(1))
            let hidden = toast.message == nil
            toast.show("A")
            await scheduler.clock.advance(by: .milliseconds(1000))
            toast.show("B")
            await scheduler.clock.advance(by: .milliseconds(1999))
            let restarted = toast.message == "B"
            await scheduler.clock.advance(by: .milliseconds(1))
            return shown && hidden && restarted && toast.message == nil && scheduler.pendingCount == 0
        }
    }

    static func retryWithBackoff() async -> Bool {
        let scheduler = TestScheduler()
        let backend = Backend(clock: scheduler.clock, latency: .milliseconds(500), failures: 2)
        let loader = LoaderModel(backend: backend, clock: scheduler.clock)
        return await scheduler.withCapturedTasks {
            loader.load()
            await scheduler.clock.advance(by: .milliseconds(1499))  // attempt 1 failed at 0.5 s; waiting 1 s
            let first = loader.state == .loading(attempt: 1)
            await scheduler.clock.advance(by: .milliseconds(1))  // 1.5 s: attempt 2
            let second = loader.state == .loading(attempt: 2)
            await scheduler.clock.advance(by: .milliseconds(2499))  // failed at 2 s; waiting 2 s until 4 s
            let stillSecond = loader.state == .loading(attempt: 2)
            await scheduler.clock.advance(by: .milliseconds(1))  // 4 s: attempt 3
            let third = loader.state == .loading(attempt: 3)
            await scheduler.clock.advance(by: .milliseconds(500))    // 4.5 s: it answers
            return first && second && stillSecond && third && loader.state == .loaded(3)
                && scheduler.pendingCount == 0
        }
    }

    static func polling() async -> Bool {
        let scheduler = TestScheduler()
        let backend = Backend(clock: scheduler.clock, latency: .milliseconds(100))
        let model = PollingModel(backend: backend, clock: scheduler.clock)
        return await scheduler.withCapturedTasks {
            model.start()
            await scheduler.clock.advance(by: .milliseconds(99))
            let early = model.values == []
            await scheduler.clock.advance(by: .milliseconds(1))  // 0.1 s: first answer
            let first = model.values == [1]
            await scheduler.clock.advance(by: .milliseconds(5099))  // 5.199 s
            let between = model.values == [1]
            await scheduler.clock.advance(by: .milliseconds(1))  // 5.2 s: second answer
            let second = model.values == [1, 2]
            model.stop()
            await scheduler.clock.advance(by: .milliseconds(60000))
            return early && first && between && second && model.values == [1, 2] && scheduler.pendingCount == 0
        }
    }

    static func timeout() async -> Bool {
        let scheduler = TestScheduler()
        let slow = TimeoutModel(backend: Backend(clock: scheduler.clock, latency: .seconds(5)), clock: scheduler.clock)
        let fast = TimeoutModel(backend: Backend(clock: scheduler.clock, latency: .seconds(2)), clock: scheduler.clock)
        return await scheduler.withCapturedTasks {
            slow.load()
            fast.load()
            await scheduler.clock.advance(by: .milliseconds(1999))
            let waiting = slow.state == .loading && fast.state == .loading
            await scheduler.clock.advance(by: .milliseconds(1))  // 2 s: the fast one answers
            let fastLoaded = fast.state == .loaded(1) && slow.state == .loading
            await scheduler.clock.advance(by: .milliseconds(999))
            let slowWaiting = slow.state == .loading
            await scheduler.clock.advance(by: .milliseconds(1))  // 3 s: the slow one times out
            return waiting && fastLoaded && slowWaiting && slow.state == .timedOut && scheduler.pendingCount == 0
        }
    }
}
