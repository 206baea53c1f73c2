import Foundation
import Schedulers
import Testing
import TestSupport

// The code of the "Getting started" article (Sources/Schedulers/Schedulers.docc/GettingStarted.md),
// as tests that assert what the article says: each block of the article is a copy of one snippet
// region (DocumentationSnippetTests compares them). Its first two blocks, the manifest and the
// program, are the files of Examples/Client, which CI resolves, builds and runs.

/// What the article's snippets call, recorded so the tests can assert it.
private let shown = Locked<[Int]>([])
private let calls = Locked<[String]>([])
private func expensiveComputation() -> Int { (1...1_000).reduce(0, +) }
private func show(_ result: Int) { shown.withLock { $0.append(result) } }
private func retry() { calls.withLock { $0.append("retry") } }
private func refresh() { calls.withLock { $0.append("refresh") } }
private func reload() { calls.withLock { $0.append("reload") } }

@Suite(.ownThread, .timeLimit(.minutes(5)), .serialized) struct GettingStartedExamples {
    /// "The first schedule": the action runs on the scheduler's queue, as `Scheduler.current`,
    /// and hands its result to the main queue.
    @Test func theFirstSchedule() {
        let ranAsCurrent = Locked<Bool?>(nil)

        let work = TargetQueueScheduler(priority: .default, name: "com.example.work")
        work.schedule {
            // Runs on work.queue, with Scheduler.current === work.
            ranAsCurrent.withLock { $0 = Scheduler.current === work }
            let result = expensiveComputation()
            Scheduler.main.schedule { show(result) }   // always asynchronous, on the main queue
        }

        #expect(waitUntil { ranAsCurrent.value != nil })
        #expect(ranAsCurrent.value == true)
        #expect(work.queue.label == "com.example.work")   // the name labels the queue
        #expect(waitUntil { shown.value.contains(500_500) })   // Swift Testing drains the main queue
    }

    /// "The first schedule": the other scheduling methods, each disposed before it is due.
    @Test func laterWork() {
        let work = TargetQueueScheduler(priority: .default, name: "com.example.work")

        let later = CompoundDisposable()
        work.queue.suspend()  // nothing may start before the disposals, however slow this thread
        // snippet: getting-started-later-work
        // In 2 s by the wall clock:
        later.add(work.schedule(afterDelay: 2) { retry() })
        // In 2 s by the monotonic clock:
        later.add(work.schedule(after: .seconds(2)) { retry() })
        // Now, then every 60 s until disposed:
        later.add(work.schedule(after: Date(), repeatingEvery: 60) { refresh() })
        // snippet: end
        later.dispose()

        // snippet: getting-started-refresh-timer
        let refreshTimer = work.schedule(
            after: Date(timeIntervalSinceNow: 60), repeatingEvery: 60
        ) { reload() }
        // … when the screen closes:
        refreshTimer?.dispose()
        // snippet: end
        work.queue.resume()

        let drained = Locked(false)
        work.schedule { drained.withLock { $0 = true } }
        #expect(waitUntil { drained.value })
        #expect(!calls.value.contains("retry"))
        #expect(!calls.value.contains("reload"))
    }

    /// "Disposal": an action disposed before it starts never starts, and its closure is released
    /// by the time `dispose()` returns.
    @Test func disposingBeforeTheActionStarts() {
        let work = TargetQueueScheduler(name: "com.example.paused")
        work.queue.suspend()   // holds the queue, so the action cannot have started yet

        var payload: Token? = Token()
        let released = Weak(payload!)
        let ran = Locked(false)
        let disposable = work.schedule { [payload] in
            _ = payload
            ran.withLock { $0 = true }
        }
        payload = nil

        disposable?.dispose()
        #expect(released.object == nil)   // the closure, and what it captured, are gone already

        work.queue.resume()
        let drained = Locked(false)
        work.schedule { drained.withLock { $0 = true } }   // FIFO: runs after the disposed one's turn
        #expect(waitUntil { drained.value })
        #expect(ran.value == false)  // never started
    }

    /// "Disposal": a repeating action runs until disposed, whether or not the disposable is kept.
    @Test func disposingARepeatingTimer() {
        // snippet: getting-started-virtual-time
        let scheduler = TestScheduler()
        // Safe: a TestScheduler runs actions on the thread that drives it.
        nonisolated(unsafe) var ticks = 0
        let timer = scheduler.schedule(
            after: .seconds(1), repeatingEvery: .seconds(1)
        ) { ticks += 1 }
        scheduler.advance(by: 3)
        #expect(ticks == 3)   // and scheduler.now is the start + 3 s
        timer?.dispose()
        // snippet: end
        scheduler.advance(by: 10)
        #expect(ticks == 3)
        #expect(scheduler.pendingCount == 0)
    }

    /// "Several at once": a CompoundDisposable disposes everything it holds.
    @Test func compoundDisposable() {
        // snippet: getting-started-compound
        let scheduler = TestScheduler()
        // Safe: a TestScheduler runs actions on the thread that drives it.
        nonisolated(unsafe) var fired: [String] = []
        let subscriptions = CompoundDisposable()
        subscriptions.add(scheduler.schedule(afterDelay: 1) { fired.append("a") })
        subscriptions.add(scheduler.schedule(afterDelay: 2) { fired.append("b") })
        subscriptions.dispose()   // e.g. when the screen closes
        scheduler.advance(by: 5)
        #expect(fired.isEmpty)    // neither ran
        // snippet: end
    }
}
