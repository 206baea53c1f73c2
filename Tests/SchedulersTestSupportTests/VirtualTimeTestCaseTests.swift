import Foundation
@_spi(SchedulersInternal) import Disposables
import SchedulersTestSupport
import XCTest

// XCTest's one line (VirtualTimeTestCase): each method, synchronous or `async`, in a world of
// its own. Every method starts by checking that its scheduler is new, and leaves time moved, so
// a scheduler shared between methods fails whichever runs second.

// snippet: xctest-one-line
final class SearchModelXCTests: VirtualTimeTestCase {
    @MainActor func testDebounces() async throws {
        let model = SearchModel(backend: { ["\($0)!"] })
        model.queryChanged("s")
        try await Task.sleep(for: .milliseconds(100))  // virtual
        model.queryChanged("sw")
        try await Task.sleep(for: .milliseconds(299))
        XCTAssertEqual(model.results, [])
        try await Task.sleep(for: .milliseconds(1))
        XCTAssertEqual(model.results, ["sw!"])
    }
}
// snippet: end

/// An `async` `setUp` runs in a task XCTest starts and waits for before it starts the
/// method's: the method's own task is the body then, not the setUp's (a task the method starts
/// may reuse that one's address), and the debounce stays exact.
final class AsyncSetUpXCTests: VirtualTimeTestCase {
    override func setUp() async throws {
        try await super.setUp()
        try await Task.sleep(for: .seconds(1))   // virtual too
    }

    @MainActor func testDebouncesAfterAnAsyncSetUp() async throws {
        XCTAssertEqual(scheduler.now, Date(timeIntervalSinceReferenceDate: 1))
        for _ in 0..<100 {
            let model = SearchModel(backend: { ["\($0)!"] })
            model.queryChanged("s")
            try await Task.sleep(for: .milliseconds(100))
            model.queryChanged("sw")
            try await Task.sleep(for: .milliseconds(299))
            XCTAssertEqual(model.results, [])
            try await Task.sleep(for: .milliseconds(1))
            XCTAssertEqual(model.results, ["sw!"])
        }
    }
}

final class VirtualTimeTestCaseTests: VirtualTimeTestCase {
    /// A method that hangs fails the run within two minutes instead of holding CI: XCTest on
    /// Linux has no time limit of its own for a method.
    override func invokeTest() {
        let finished = Flag()
        let name = self.name
        Thread {
            let deadline = Date().addingTimeInterval(120)
            while !finished.isSet, Date() < deadline { usleep(10_000) }
            guard !finished.isSet else { return }
            FileHandle.standardError.write(Data("\(name) did not finish within 120 s\n".utf8))
            exit(1)
        }.start()
        super.invokeTest()
        finished.set()
    }

    /// A synchronous method drives by hand, exactly: time moves only when it advances.
    func testASynchronousMethodDrivesByHand() {
        assertNewScheduler()
        let clock = scheduler.clock
        let woke = Flag()
        Task {
            try await clock.sleep(for: .seconds(1))
            woke.set()
        }
        scheduler.advance(by: 0.999)
        XCTAssertFalse(woke.isSet)
        scheduler.advance(by: 0.001)
        XCTAssertTrue(woke.isSet)
    }

    /// An `async` method's sleeps on a real clock are virtual, and exact.
    func testAnAsyncMethodSleepsInVirtualTime() async throws {
        assertNewScheduler()
        let start = ContinuousClock.now
        try await Task.sleep(for: .seconds(3600))
        XCTAssertEqual(start.duration(to: .now), .seconds(3600))
        XCTAssertEqual(scheduler.now, Date(timeIntervalSinceReferenceDate: 3600))
    }

    /// Waiting for an expectation lets time move by itself, and it stops where the expectation
    /// is fulfilled, though a heartbeat would keep it moving. The last task the method started
    /// before it waits is the world's body: its wake-up at 5 s comes after the rest of that
    /// moment, here an earlier task's wake-up, queued first.
    func testWaitingForAnExpectationLetsTimeMoveUpToItsFulfilment() {
        assertNewScheduler()
        let slept = expectation(description: "slept")
        let clock = scheduler.clock
        let heartbeat = scheduler.schedule(after: .seconds(1), repeatingEvery: .seconds(1)) {}
        let others = Counter()
        let othersWhenWoken = Lock(-1)
        Task {
            try await clock.sleep(for: .seconds(5))
            others.increment()
        }
        Task {
            try await clock.sleep(for: .seconds(5))
            othersWhenWoken.withLock { $0 = others.value }
            slept.fulfill()
        }
        wait(for: [slept], timeout: 60)
        XCTAssertEqual(scheduler.now, Date(timeIntervalSinceReferenceDate: 5))
        XCTAssertEqual(othersWhenWoken.withLock { $0 }, 1)
        heartbeat?.dispose()
    }

    /// A method that waits while a heartbeat keeps time moving without end is reported after
    /// ten thousand moves of time in a row that ran none of its jobs, and its task is cancelled,
    /// so the method ends (XCTest on Linux would wait for it for ever).
    func testARunawayMethodIsReportedAndEnds() async {
        let heartbeat = scheduler.schedule(after: .seconds(1), repeatingEvery: .seconds(1)) {}
        let (stream, continuation) = AsyncStream<Int>.makeStream()
        let (_, warnings) = await scheduler.withExpectedWarnings {
            for await _ in stream {}  // nobody yields or finishes
        }
        XCTAssertTrue(Task.isCancelled)
        XCTAssertEqual(warnings.count, 1)
        XCTAssertTrue(warnings.first?.contains("the test method on \(scheduler) waits while virtual time moves on without end") == true)
        // The first move came after the method's own jobs had run; then ten thousand without
        // any, and not one more: time moves no more by itself after the report.
        XCTAssertEqual(scheduler.now, Date(timeIntervalSinceReferenceDate: 10_001))
        heartbeat?.dispose()
        continuation.finish()
    }

    /// A method that can never go on (nothing due, nothing pending: a stream nobody finishes)
    /// is reported after ten `waitWarningDelay`s of real time, and its task is cancelled.
    func testAMethodThatCanNeverGoOnIsReportedAndEnds() async {
        scheduler.waitWarningDelay = .milliseconds(20)
        let (stream, continuation) = AsyncStream<Int>.makeStream()
        let (_, warnings) = await scheduler.withExpectedWarnings {
            for await _ in stream {}
        }
        XCTAssertTrue(Task.isCancelled)
        XCTAssertEqual(warnings.count, 1)
        XCTAssertTrue(warnings.first?.contains("the test method on \(scheduler) can never go on") == true)
        XCTAssertEqual(scheduler.now, Date(timeIntervalSinceReferenceDate: 0))
        continuation.finish()
    }

    /// `setUp` and `tearDown` run inside the method's world (`tearDown` checks it after every
    /// method of this class).
    func testSetUpRunsInTheMethodsWorld() {
        XCTAssertTrue(worldOfSetUp === scheduler)
    }

    private var worldOfSetUp: TestScheduler?

    override func setUp() {
        super.setUp()
        worldOfSetUp = TestScheduler.capturing
    }

    override func tearDown() {
        XCTAssertTrue(TestScheduler.capturing === scheduler, "tearDown ran outside the method's world")
        super.tearDown()
    }

    private func assertNewScheduler(file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(scheduler.now, Date(timeIntervalSinceReferenceDate: 0), file: file, line: line)
        XCTAssertEqual(scheduler.pendingCount, 0, file: file, line: line)
    }
}

/// A flag any thread sets and reads.
private final class Flag: Sendable {
    private let value = Atomic<Bool>(false)

    var isSet: Bool { value.load(ordering: .acquiring) }

    func set() {
        value.store(true, ordering: .releasing)
    }
}
