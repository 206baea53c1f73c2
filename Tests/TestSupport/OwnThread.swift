import Foundation
import Testing

/// Runs each test of a suite (each case of a parameterized test) on a thread of its own, not on
/// the cooperative pool, and at most two such suites at once:
/// `@Suite(.ownThread, .timeLimit(.minutes(5)))`.
///
/// Five minutes, not one: in CI, seven cases of DatesMeetDurationsTests, 2.4 s of work together
/// on this machine (4.6 s pinned to one core beside the whole suite), exceeded a one-minute
/// limit in a run that took twice its usual time throughout, which no local run reproduced. A
/// hang still fails within minutes, well inside CI's budget.
///
/// Swift Testing calls every test body, synchronous ones included, from a task on the cooperative
/// pool, which has one thread per core (two on the CI machine). A test that blocks its thread (a
/// `waitUntil`, a semaphore, a `DispatchGroup.wait`, threads it joins, or seconds of work under
/// ThreadSanitizer) would hold one of those two threads, and two such tests starve every task
/// the other tests wait for: a 20 ms sleep took 43 s, and under TSan a test timed out and hung
/// the run. With this trait the test's task prefers an executor with a thread of its own, so the
/// body (and the test's `async` code, between suspensions) runs there, and the pool stays free
/// for the tasks tests start. `Task {}` and `Task.detached` do not inherit the preference, so
/// the work a test waits for still runs on the pool.
///
/// With every test on a thread of its own, nothing bounds how many run at once: under
/// ThreadSanitizer on 2 busy cores, all 470 tests at once took over a minute each. So at most
/// two suites run at a time (their tests in parallel). The bound is on suites, not tests,
/// because a test's `.timeLimit` counts from before its scope, while a suite's scope is outside
/// its tests' limits: waiting for a turn never counts against a test.
///
/// Blocking is still wrong in `async` code a test starts (`Task {}`): that runs on the pool.
/// ``isOnATestsOwnThread`` lets waiting helpers check where they are.
public struct OwnThreadTrait: SuiteTrait, TestTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
        // A suite waits for its turn; each case (the body) gets a thread. A test function as a
        // whole needs neither.
        test.isSuite || testCase != nil ? self : nil
    }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        if testCase == nil {
            // A nested suite runs in its parent's turn. It must not wait for one of its own:
            // the trait is recursive, so a nested suite that also declares it is scoped twice,
            // and the parent's turn plus two more is more than the width (measured: the run hung
            // with MigrationExamples' nested suites waiting for turns nobody would give back).
            if SuiteTurns.holdsTurn {
                try await function()
                return
            }
            await SuiteTurns.shared.enter()
            do {
                try await SuiteTurns.$holdsTurn.withValue(true) { try await function() }
            } catch {
                await SuiteTurns.shared.leave()
                throw error
            }
            await SuiteTurns.shared.leave()
            return
        }
        // Already on a test's own thread: the trait is recursive, so a nested suite that also
        // declares it scopes each case twice, and a second executor preference would replace
        // whatever a trait between the two gave the case (`.virtualTime`'s scheduler).
        if isOnATestsOwnThread {
            try await function()
            return
        }
        let executor = ThreadExecutor(name: "test: \(test.name)")
        defer { executor.finish() }
        try await withTaskExecutorPreference(executor) { try await function() }
    }
}

/// Lets at most `width` suites run at once; the others wait (suspended, not blocking), in order.
actor SuiteTurns {
    static let shared = SuiteTurns(width: 2)

    /// Whether the calling task runs inside a suite that holds a turn.
    @TaskLocal static var holdsTurn = false

    private var free: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(width: Int) {
        free = width
    }

    func enter() async {
        if free > 0 {
            free -= 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func leave() {
        if waiting.isEmpty {
            free += 1
        } else {
            waiting.removeFirst().resume()  // the slot passes straight to the next suite
        }
    }
}

extension Trait where Self == OwnThreadTrait {
    /// Each test runs on a thread of its own, off the cooperative pool (see ``OwnThreadTrait``).
    public static var ownThread: Self { OwnThreadTrait() }
}

/// Whether the calling thread is a test's own thread (``OwnThreadTrait``), where blocking is
/// allowed.
public var isOnATestsOwnThread: Bool {
    Thread.current.threadDictionary[ThreadExecutor.marker] != nil
}

/// Whether the calling code may block its thread: the main thread (XCTest), a test's own
/// thread, or any thread that is not running a task (Dispatch queues, threads of a test's own).
/// A task's thread that is not a test's own is a cooperative-pool thread (or an executor of the
/// package's, which must not be blocked either).
public var mayBlockThisThread: Bool {
    if Thread.isMainThread || isOnATestsOwnThread { return true }
    return withUnsafeCurrentTask { $0 == nil }
}

/// A `TaskExecutor` that runs jobs, in order, on one thread it starts, until ``finish()``.
final class ThreadExecutor: TaskExecutor, @unchecked Sendable {
    // `@unchecked`: `jobs` and `finished` are only touched with `condition` locked.
    static let marker = "SchedulersTests.ownThread"

    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var finished = false

    init(name: String) {
        let thread = Thread { [self] in run() }
        thread.name = name
        thread.stackSize = 8 << 20  // as a pool thread's: recursion tests probe stack use
        thread.start()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        if finished {
            // Nothing should prefer this executor once its test is over; if something does,
            // it must still run.
            condition.unlock()
            globalConcurrentExecutor.enqueue(job)
            return
        }
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    /// Lets the thread end once it has run every job enqueued so far.
    func finish() {
        condition.lock()
        finished = true
        condition.signal()
        condition.unlock()
    }

    private func run() {
        Thread.current.threadDictionary[Self.marker] = true
        while true {
            condition.lock()
            while jobs.isEmpty && !finished { condition.wait() }
            if jobs.isEmpty {
                condition.unlock()
                return
            }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}

/// Records an issue when `what`, about to block its thread, runs on a thread that must not
/// block (see ``mayBlockThisThread``): a suite without ``OwnThreadTrait``, or a task's code.
public func expectMayBlock(_ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
    if !mayBlockThisThread {
        Issue.record(
            "\(what) blocks a cooperative-pool thread: give the suite .ownThread, or await instead",
            sourceLocation: sourceLocation)
    }
}
