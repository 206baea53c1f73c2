import Foundation
import SchedulersTestSupport
import Testing
import TestSupport

// The contract's `.virtualTime` examples, as written, and what the trait promises: a scheduler
// of its own for every test and every case, on tests and (recursively) on suites.

@Suite(.ownThread, .timeLimit(.minutes(5))) struct VirtualTimeTraitTests {
    @Test(.virtualTime) @MainActor func debouncesAtTheTimeItSlept() async throws {
        let model = SearchModel(backend: { ["\($0)!"] })
        model.queryChanged("s")
        try await Task.sleep(for: .milliseconds(100))    // the test lets 100 ms pass
        model.queryChanged("sw")
        try await Task.sleep(for: .milliseconds(299))
        #expect(model.results == [])
        try await Task.sleep(for: .milliseconds(1))
        #expect(model.results == ["sw!"])
        let scheduler = try #require(TestScheduler.capturing)
        #expect(scheduler.now == Date(timeIntervalSinceReferenceDate: 0.4))
    }

    @Test(.virtualTime(startDate: Date(timeIntervalSince1970: 1_700_000_000)))
    func startsAtItsStartDate() async throws {
        let scheduler = try #require(TestScheduler.capturing)
        #expect(scheduler.now == Date(timeIntervalSince1970: 1_700_000_000))
        try await Task.sleep(for: .seconds(3_600))
        #expect(scheduler.now == Date(timeIntervalSince1970: 1_700_003_600))
    }

    @Test(.virtualTime(advancing: .manually)) func firesOnce() async throws {
        let scheduler = try #require(TestScheduler.capturing)
        let fired = Counter()
        Task { try await Task.sleep(for: .seconds(1)); fired.increment() }
        await scheduler.clock.advance(by: .milliseconds(999))
        #expect(fired.value == 0)
        await scheduler.clock.advance(by: .milliseconds(1))
        #expect(fired.value == 1)
    }

    @Test func capturingIsNilOutsideEveryWorld() async {
        #expect(TestScheduler.capturing == nil)
        let outside = await Task.detached { TestScheduler.capturing }.value
        #expect(outside == nil)
    }

    @Test(.virtualTime) func capturingIsTheSameFromEveryTaskTheTestStarts() async throws {
        let scheduler = try #require(TestScheduler.capturing)
        let fromChild = await Task { TestScheduler.capturing }.value
        let fromMainActor = await Task { @MainActor in TestScheduler.capturing }.value
        let fromGrandchild = await Task { await Task { TestScheduler.capturing }.value }.value
        async let fromAsyncLet = TestScheduler.capturing
        let fromAsyncLetValue = await fromAsyncLet
        #expect(fromChild === scheduler)
        #expect(fromMainActor === scheduler)
        #expect(fromGrandchild === scheduler)
        #expect(fromAsyncLetValue === scheduler)
    }

    @Test func capturingIsTheInnermostCapture() async {
        let outer = TestScheduler()
        let inner = TestScheduler()
        await outer.withCapturedTasks {
            #expect(TestScheduler.capturing === outer)
            await inner.withCapturedTasks {
                #expect(TestScheduler.capturing === inner)
                let fromTask = await Task { TestScheduler.capturing }.value
                #expect(fromTask === inner)
            }
            #expect(TestScheduler.capturing === outer)
        }
        outer.withCapturedTasks {
            #expect(TestScheduler.capturing === outer)
        }
        #expect(TestScheduler.capturing == nil)
    }

    /// Each case has its own scheduler: every case starts at the start date, whatever the cases
    /// before it (or beside it, in parallel) slept.
    @Test(.virtualTime, arguments: 1...20) func everyCaseHasASchedulerOfItsOwn(seconds: Int) async throws {
        let scheduler = try #require(TestScheduler.capturing)
        #expect(scheduler.now == Date(timeIntervalSinceReferenceDate: 0))
        try await Task.sleep(for: .seconds(seconds))
        #expect(scheduler.now == Date(timeIntervalSinceReferenceDate: TimeInterval(seconds)))
        #expect(TestScheduler.capturing === scheduler)
    }

    @Test(.virtualTime) func aThrowingTestThrowsThroughTheTrait() async throws {
        struct Expected: Error {}
        await #expect(throws: Expected.self) {
            try await Task.sleep(for: .seconds(1))
            throw Expected()
        }
    }
}

/// The trait on a suite applies to each of its tests, and to those of its nested suites, each
/// with a scheduler of its own.
@Suite(.ownThread, .timeLimit(.minutes(5)), .virtualTime) struct VirtualTimeSuiteTraitTests {
    @Test func first() async throws {
        let scheduler = try #require(TestScheduler.capturing)
        try await Task.sleep(for: .seconds(5))
        #expect(scheduler.now == Date(timeIntervalSinceReferenceDate: 5))
    }

    @Test func second() async throws {
        let scheduler = try #require(TestScheduler.capturing)
        try await Task.sleep(for: .seconds(7))
        #expect(scheduler.now == Date(timeIntervalSinceReferenceDate: 7))
    }

    @Suite(.ownThread, .timeLimit(.minutes(5))) struct Nested {
        @Test func nestedTestsHaveAWorldToo() async throws {
            let scheduler = try #require(TestScheduler.capturing)
            try await Task.sleep(for: .seconds(11))
            #expect(scheduler.now == Date(timeIntervalSinceReferenceDate: 11))
        }
    }
}
