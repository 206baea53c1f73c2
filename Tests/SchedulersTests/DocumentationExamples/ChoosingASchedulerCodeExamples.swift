import Foundation
import Schedulers
import Testing
import TestSupport
import XCTest

// The code blocks of the "Choosing a scheduler" article (ChoosingAScheduler.md) beyond its
// table, as snippet regions (DocumentationSnippetTests checks that each block equals its region)
// inside tests that assert what the article says about them. The table's claims are asserted in
// ChoosingASchedulerExamples.swift.

/// What the snippets call, recorded so the tests can assert it.
private let log = Locked<[String]>([])
private let remaining = Locked(3)
private func more() -> Bool { remaining.withLock { $0 -= 1; return $0 >= 0 } }
private func poll() { log.withLock { $0.append("poll") } }
private func retry() { log.withLock { $0.append("retry") } }
private func render() { log.withLock { $0.append("render") } }
/// Recorded instead of written to standard output, so that a green run is quiet.
private func print(_ line: String) { log.withLock { $0.append(line) } }

/// The article's executor example: an actor that runs on a scheduler's queue.
// snippet: choosing-actor-on-a-scheduler
actor Cache {
    let scheduler = TargetQueueScheduler(name: "cache")
    nonisolated var unownedExecutor: UnownedSerialExecutor {
        scheduler.asUnownedSerialExecutor()
    }
    var entries: [String] = []
    func store(_ entry: String) { entries.append(entry) }
}
// snippet: end

@Suite(.ownThread, .timeLimit(.minutes(5)), .serialized) struct ChoosingASchedulerCodeExamples {
    /// The immediate scheduler runs inline, and its recursion is a loop.
    @Test func immediateScheduler() {
        remaining.withLock { $0 = 3 }
        // snippet: choosing-immediate
        Scheduler.immediate.schedule { print("runs before schedule returns") }
        // A loop, with no stack growth:
        Scheduler.immediate.scheduleRecursive { again in if more() { again() } }
        // snippet: end
        #expect(log.value.contains("runs before schedule returns"))
        #expect(remaining.value == -1)   // asked four times: three more, then no more
    }

    /// The subscription scheduler runs inline inside another scheduler's action.
    @Test func subscriptionSchedulerRunsInline() {
        let work = TargetQueueScheduler(name: "work")
        let order = Locked<[String]>([])
        let done = Locked(false)
        work.schedule {
            order.withLock { $0.append("before") }
            // snippet: choosing-subscription
            work.schedule {
                Scheduler.subscription.schedule {
                    // Inline, on work, before schedule returns.
                }
            }
            // snippet: end
            Scheduler.subscription.schedule { order.withLock { $0.append("inline") } }
            order.withLock { $0.append("after") }
            done.withLock { $0 = true }
        }
        #expect(waitUntil { done.value })
        #expect(order.value == ["before", "inline", "after"])
    }

    /// The async forms on a queue scheduler, in real time (short waits).
    @Test(.timeLimit(.minutes(5))) func asyncForms() async throws {
        let scheduler = TargetQueueScheduler(name: "async")
        let deadline = Date(timeIntervalSinceNow: 0.1)
        nonisolated(unsafe) var ticked = false   // written and read by this task only
        // snippet: choosing-async
        // Cancelling the task throws CancellationError at once:
        try await scheduler.sleep(for: .milliseconds(300))
        try await scheduler.sleep(until: deadline)   // a Date: wall clock
        for await date in scheduler.timer(every: .seconds(1)) {
            ticked = date > deadline
            break   // the timer stops when the loop ends
        }
        scheduler.schedule(after: .seconds(2)) { retry() }
        let timer = scheduler.schedule(
            after: .zero, repeatingEvery: .seconds(1), leeway: .milliseconds(100)
        ) { poll() }
        // snippet: end
        timer?.dispose()
        #expect(ticked)
        #expect(Date() > deadline)
    }

    /// An actor on a scheduler's queue, a task preferring a scheduler, and `assumeIsolated`
    /// inside a plain action on the actor's queue.
    @Test(.timeLimit(.minutes(5))) func executors() async {
        // snippet: choosing-executors
        let cache = Cache()
        await cache.store("a")   // on cache.scheduler.queue, as Scheduler.current
        let work = TargetQueueScheduler(name: "work")
        let task = Task(executorPreference: work) { Scheduler.current === work }
        await withTaskExecutorPreference(work) { /* runs on work.queue */ }
        // In a plain action on the actor's queue, the actor is isolated:
        cache.scheduler.schedule {
            cache.assumeIsolated { $0.store("b") }
        }
        // snippet: end
        #expect(await task.value)
        #expect(await cache.entries == ["a", "b"])   // the queue is serial: "b" was stored first
    }
}

/// XCTest, because `RunLoopBlocker` is for the main thread (XCTest bodies run there).
final class ChoosingASchedulerRunLoopBlockerExample: XCTestCase {
    func testWaitsForMainQueueWork() throws {
        // snippet: choosing-run-loop-blocker
        try RunLoopBlocker.wait(timeout: 2) { done in
            Scheduler.main.schedule { render(); done() }
        }
        // snippet: end
        XCTAssertTrue(log.value.contains("render"))
    }
}
