import Dispatch
import Foundation
@_spi(SchedulersInternal) import Disposables
import SchedulersTestSupport
import Testing
import TestSupport
import VirtualReadings

/// Dispatch work the world starts belongs to it: a block that world code submits runs with the
/// world's readings, virtual time holds while it is in flight, and an `asyncAfter` deadline is
/// virtual. So a completion handler on a Dispatch queue answers at the virtual time it was
/// asked, in every run, with no report. Each shape runs many times in a row, so that one exact
/// only usually fails here.
@Suite(.ownThread, .timeLimit(.minutes(5))) struct WorldDispatchTests {
    static let runs = stressCount(1_000)

    @MainActor @Test func aCompletionHandlerIsExactInTheSynchronousShape() {
        for _ in 0..<Self.runs {
            let scheduler = TestScheduler()
            let model = CompletionSearchModel(backend: DispatchBackend(latency: nil))
            scheduler.withCapturedTasks {
                model.queryChanged("s")
                scheduler.advance(by: 0.299)
                #expect(model.results == [])
                scheduler.advance(by: 0.001)
                #expect(model.results == ["s!"])
                #expect(scheduler.pendingCount == 0)
            }
        }
    }

    @MainActor @Test func anAsyncAfterOf20MillisecondsIsExactInTheSynchronousShape() {
        for _ in 0..<Self.runs {
            let scheduler = TestScheduler()
            let model = CompletionSearchModel(backend: DispatchBackend(latency: .milliseconds(20)))
            scheduler.withCapturedTasks {
                model.queryChanged("s")
                scheduler.advance(by: 0.3)
                #expect(model.results == [])
                scheduler.advance(by: 0.019)
                #expect(model.results == [])
                scheduler.advance(by: 0.001)
                #expect(model.results == ["s!"])
            }
        }
    }

    @MainActor @Test func aCompletionHandlerIsExactInTheAsynchronousShape() async {
        for latency in [nil, DispatchTimeInterval.milliseconds(20)] {
            for _ in 0..<Self.runs {
                let scheduler = TestScheduler()
                let model = CompletionSearchModel(backend: DispatchBackend(latency: latency))
                await scheduler.withCapturedTasks {
                    model.queryChanged("s")
                    await scheduler.clock.advance(by: .milliseconds(300))
                    #expect(model.results == (latency == nil ? ["s!"] : []))
                    await scheduler.clock.advance(by: .milliseconds(20))
                    #expect(model.results == ["s!"])
                }
            }
        }
    }

    @MainActor @Test func aCompletionHandlerIsExactWithAutomaticAdvance() async throws {
        for latency in [nil, DispatchTimeInterval.milliseconds(20)] {
            for _ in 0..<Self.runs {
                let scheduler = TestScheduler()
                let model = CompletionSearchModel(backend: DispatchBackend(latency: latency))
                try await scheduler.withCapturedTasks(advancing: .automatically) {
                    let start = ContinuousClock.now
                    model.queryChanged("s")
                    try await Task.sleep(for: .milliseconds(300))
                    #expect(model.results == (latency == nil ? ["s!"] : []))
                    try await Task.sleep(for: .milliseconds(20))
                    #expect(model.results == ["s!"])
                    #expect(start.duration(to: .now) == .milliseconds(320))
                }
            }
        }
    }

    /// A timeout raced against a Dispatch backend loses every run: time holds while the answer
    /// is on its way, and reads zero when it comes.
    @Test func aTimeoutRacedAgainstADispatchBackendLoses() async throws {
        for _ in 0..<Self.runs {
            let scheduler = TestScheduler()
            try await scheduler.withCapturedTasks(advancing: .automatically) {
                let start = ContinuousClock.now
                let answer = try await withThrowingTaskGroup(of: [String]?.self) { group in
                    group.addTask { await DispatchBackend(latency: nil).search("s") }
                    group.addTask {
                        try await Task.sleep(for: .seconds(5))
                        return nil
                    }
                    let first = try await group.next() ?? nil
                    group.cancelAll()
                    return first
                }
                #expect(answer == ["s!"])
                #expect(start.duration(to: .now) == .zero)
            }
        }
    }

    @Test(.virtualTime) func asyncAfterRunsAtExactlyItsVirtualDeadline() async {
        let start = ContinuousClock.now
        let startDispatch = DispatchTime.now()
        let (fired, firedDispatch) = await withCheckedContinuation { (done: CheckedContinuation<(ContinuousClock.Instant, DispatchTime), Never>) in
            DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(30)) {
                done.resume(returning: (ContinuousClock.now, DispatchTime.now()))
            }
        }
        #expect(start.duration(to: fired) == .seconds(30))
        #expect(firedDispatch.uptimeNanoseconds - startDispatch.uptimeNanoseconds == 30_000_000_000)
        let wall = await withCheckedContinuation { (done: CheckedContinuation<Date, Never>) in
            DispatchQueue.global().asyncAfter(wallDeadline: .now() + .seconds(60)) { done.resume(returning: Date()) }
        }
        #expect(wall == Date(timeIntervalSinceReferenceDate: 90))
    }

    @Test(.virtualTime(advancing: .manually)) func asyncAfterWaitsForManualDrives() async throws {
        let scheduler = try #require(TestScheduler.capturing)
        let fired = Counter()
        DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(30)) { fired.increment() }
        await scheduler.clock.advance(by: .milliseconds(29_999))
        #expect(fired.value == 0)
        await scheduler.clock.advance(by: .milliseconds(1))
        #expect(fired.value == 1)
    }

    /// The debounce of callback code: a `DispatchWorkItem` sent with `asyncAfter` and cancelled
    /// when the next query comes. Cancelled items never run; the last runs at its deadline.
    @Test(.virtualTime(advancing: .manually)) func aCancelledWorkItemNeverRuns() async throws {
        let scheduler = try #require(TestScheduler.capturing)
        let searched = Lock<[String]>([])
        var pending: DispatchWorkItem?
        for query in ["s", "sw", "swi"] {
            pending?.cancel()
            let item = DispatchWorkItem { searched.withLock { $0.append(query) } }
            pending = item
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(300), execute: item)
            await scheduler.clock.advance(by: .milliseconds(100))
        }
        await scheduler.clock.advance(by: .milliseconds(199))
        #expect(searched.withLock { $0 } == [])
        await scheduler.clock.advance(by: .milliseconds(1))
        #expect(searched.withLock { $0 } == ["swi"])
        await scheduler.clock.advance(by: .seconds(1))
        #expect(searched.withLock { $0 } == ["swi"])
    }

    /// A task that a completion handler starts is the world's: its sleep is virtual, and the
    /// test sees what it did at exactly the time it did it.
    @MainActor @Test(.virtualTime) func aTaskACompletionHandlerStartsIsTheWorlds() async throws {
        let start = ContinuousClock.now
        let done = Lock<Duration?>(nil)
        DispatchQueue.global().async {
            Task {
                try await Task.sleep(for: .seconds(2))
                done.withLock { $0 = start.duration(to: .now) }
            }
        }
        try await Task.sleep(for: .seconds(2))
        #expect(done.withLock { $0 } == .seconds(2))
        #expect(TestScheduler.capturing != nil)
    }

    /// What a block submits in turn is the world's too: time holds for the whole chain.
    @Test(.virtualTime) func blocksSubmittedByBlocksHoldTimeToo() async {
        let start = ContinuousClock.now
        // Pending work that an automatic advance would jump to, were time not held.
        let pending = Task { try? await Task.sleep(for: .seconds(1)) }
        defer { pending.cancel() }
        let serial = DispatchQueue(label: "WorldDispatchTests.serial")
        let reading = await withCheckedContinuation { (done: CheckedContinuation<ContinuousClock.Instant, Never>) in
            DispatchQueue.global().async {
                serial.async {
                    DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(2)) {
                        done.resume(returning: ContinuousClock.now)
                    }
                }
            }
        }
        #expect(start.duration(to: reading) == .seconds(2))
    }

    @Test(.virtualTime) func aGroupsNotificationArrivesBeforeTimeMoves() async {
        for _ in 0..<Self.runs {
            let start = ContinuousClock.now
            let pending = Task { try? await Task.sleep(for: .seconds(1)) }
            defer { pending.cancel() }
            let sum = Counter()
            let reading = await withCheckedContinuation { (done: CheckedContinuation<ContinuousClock.Instant, Never>) in
                let group = DispatchGroup()
                for _ in 0..<3 {
                    DispatchQueue.global().async(group: group) { sum.increment() }
                }
                group.enter()
                DispatchQueue.global().async {
                    sum.increment()
                    group.leave()
                }
                group.notify(queue: .global()) { done.resume(returning: ContinuousClock.now) }
            }
            #expect(sum.value == 4)
            #expect(start.duration(to: reading) == .zero)
        }
    }

    /// A notification can start before the leave that sent it has looked for it, and then run
    /// past the end of the leaver's block. It holds time itself then. Forced here: a seam holds
    /// the leave between leaving and looking until the notification has started, and the
    /// notification reads the clock only well after the leaver's block has ended. Before, such a
    /// notification ran uncounted and time moved on to the pending second under it (CI, 6d58817).
    @Test(.virtualTime) func aNotificationThatStartsBeforeItsLeaveLooksHoldsTimeItself() async {
        let start = ContinuousClock.now
        let pending = Task { try? await Task.sleep(for: .seconds(1)) }
        defer { pending.cancel() }
        let notificationStarted = DispatchSemaphore(value: 0)
        let leaverEnded = DispatchSemaphore(value: 0)
        let reading = await withCheckedContinuation { (done: CheckedContinuation<ContinuousClock.Instant, Never>) in
            let group = DispatchGroup()
            group.enter()
            group.notify(queue: DispatchQueue(label: "notification")) {
                notificationStarted.signal()
                _ = leaverEnded.wait(timeout: .now() + .seconds(10))
                // Long enough for a driver to move time once the leaver's flight has ended.
                usleep(200_000)
                done.resume(returning: ContinuousClock.now)
            }
            DispatchQueue(label: "leaver").async {
                AfterGroupLeave.whileRunning({ _ = notificationStarted.wait(timeout: .now() + .seconds(10)) }) {
                    group.leave()
                }
                leaverEnded.signal()
            }
        }
        #expect(start.duration(to: reading) == .zero)
    }

    /// A repeating `DispatchSourceTimer` set in the world ticks at exactly its virtual
    /// deadlines, with no drift, each tick's handler done before time moves on; and once the
    /// last handler is done, time moves on by itself to the test's own deadline. Many rounds:
    /// a handler finishing just after the driver looked, before it parked, once left the
    /// driver parked for good (2 runs in 30 under ThreadSanitizer beside a busy core).
    @Test(.virtualTime) func aRepeatingTimerSourceTicksAtExactlyEachInterval() async {
        var wrong = 0
        for _ in 0..<stressCount(100) {
            let start = ContinuousClock.now
            let ticks = Lock<[Duration]>([])
            let timer = DispatchSource.makeTimerSource(queue: .global())
            timer.setEventHandler { ticks.withLock { $0.append(start.duration(to: .now)) } }
            timer.schedule(deadline: .now() + .seconds(1), repeating: .seconds(1))
            timer.resume()
            try? await Task.sleep(for: .milliseconds(3_500))
            timer.cancel()
            if ticks.withLock({ $0 }) != [.seconds(1), .seconds(2), .seconds(3)] { wrong += 1 }
        }
        #expect(wrong == 0)
    }

    @Test(.virtualTime(advancing: .manually)) func aOneShotTimerSourceFiresOnceAtItsDeadline() async throws {
        let scheduler = try #require(TestScheduler.capturing)
        let fired = Counter()
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "WorldDispatchTests.timer"))
        timer.setEventHandler { fired.increment() }
        timer.schedule(deadline: .now() + .milliseconds(250))
        timer.resume()
        await scheduler.clock.advance(by: .milliseconds(249))
        #expect(fired.value == 0)
        await scheduler.clock.advance(by: .milliseconds(1))
        #expect(fired.value == 1)
        await scheduler.clock.advance(by: .seconds(10))
        #expect(fired.value == 1)
        timer.cancel()
    }

    /// An `AsyncStream` fed by a timer source, consumed with a timeout: the ticks come first,
    /// every run.
    @Test func aStreamFedByATimerSourceBeatsItsTimeout() async throws {
        for _ in 0..<Self.runs {
            let scheduler = TestScheduler()
            let received = try await scheduler.withCapturedTasks(advancing: .automatically) {
                let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
                let timer = DispatchSource.makeTimerSource(queue: .global())
                let count = Counter()
                timer.setEventHandler {
                    count.increment()
                    continuation.yield(count.value)
                }
                timer.schedule(deadline: .now() + .milliseconds(100), repeating: .milliseconds(100))
                timer.resume()
                defer { timer.cancel() }
                return try await withThrowingTaskGroup(of: [Int]?.self) { group in
                    group.addTask {
                        var values: [Int] = []
                        for await value in stream {
                            values.append(value)
                            if values.count == 3 { break }
                        }
                        return values
                    }
                    group.addTask {
                        try await Task.sleep(for: .milliseconds(350))
                        return nil
                    }
                    let first = try await group.next() ?? nil
                    group.cancelAll()
                    return first
                }
            }
            #expect(received == [1, 2, 3])
            #expect(scheduler.now == Date(timeIntervalSinceReferenceDate: 0.3))
        }
    }

    /// A wait with a timeout in world code blocks for its real duration, though its deadline
    /// was made from a virtual `.now()` a virtual day after the world began: a semaphore's and a
    /// group's. Before, both returned at once: libdispatch read its own "now" virtually (a
    /// semaphore turns its deadline into a wall-clock one, which was in 2001).
    @Test func aTimedWaitInWorldCodeWaitsItsRealDuration() {
        let scheduler = TestScheduler()
        let outcomes = Lock<[(DispatchTimeoutResult, Int64)]>([])
        scheduler.withCapturedTasks {
            scheduler.schedule(after: .seconds(86_400)) {
                let group = DispatchGroup()
                group.enter()
                let semaphore = DispatchSemaphore(value: 0)
                let waits: [(DispatchTime) -> DispatchTimeoutResult] = [
                    { semaphore.wait(timeout: $0) }, { group.wait(timeout: $0) },
                ]
                for wait in waits {
                    let start = realMilliseconds()
                    let outcome = wait(.now() + .milliseconds(20))
                    outcomes.withLock { $0.append((outcome, realMilliseconds() - start)) }
                }
                group.leave()
            }
            scheduler.advance(by: 86_400)
        }
        let results = outcomes.withLock { $0 }
        #expect(results.map(\.0) == [.timedOut, .timedOut])
        // At least its duration; never less, at any load.
        #expect(results.allSatisfy { $0.1 >= 20 }, "\(results.map(\.1)) ms")
    }

    /// Milliseconds of real time, read on any thread: `gettimeofday` is not one of the clock
    /// functions the test binary defines (Sources/VirtualReadings), so it stays real in a world.
    private func realMilliseconds() -> Int64 {
        var value = timeval()
        gettimeofday(&value, nil)
        return Int64(value.tv_sec) * 1_000 + Int64(value.tv_usec) / 1_000
    }

    /// A block that never finishes while the world waits (here: until the test ends) holds time
    /// for `waitWarningDelay` of real time; then it is reported, once, and time moves on.
    @Test func aBlockThatNeverFinishesIsReportedAndTimeMovesOn() async {
        let scheduler = TestScheduler()
        scheduler.waitWarningDelay = .milliseconds(50)
        let release = DispatchSemaphore(value: 0)
        let (elapsed, warnings) = await scheduler.withExpectedWarnings {
            await scheduler.withCapturedTasks(advancing: .automatically) {
                let start = ContinuousClock.now
                DispatchQueue(label: "LegacySDK.sync").async { release.wait() }
                try? await Task.sleep(for: .seconds(1))
                return start.duration(to: .now)
            }
        }
        release.signal()
        #expect(elapsed == .seconds(1))
        #expect(warnings.count == 1)
        #expect(warnings.first?.contains("1 Dispatch block(s) that code in the virtual world") == true)
        #expect(warnings.first?.contains("(async on 'LegacySDK.sync')") == true)
        #expect(warnings.first?.contains("have not finished after 0.05 seconds of real time") == true)
    }

    /// The same in a synchronous drive: `advance` waits that long, reports, and goes on.
    @Test func aBlockThatNeverFinishesHoldsASynchronousDriveThatLong() {
        let scheduler = TestScheduler()
        scheduler.waitWarningDelay = .milliseconds(50)
        let release = DispatchSemaphore(value: 0)
        let fired = Counter()
        let (_, warnings) = scheduler.withExpectedWarnings {
            scheduler.withCapturedTasks {
                scheduler.schedule { DispatchQueue.global().async { release.wait() } }
                scheduler.schedule(afterDelay: 1) { fired.increment() }
                scheduler.advance(by: 2)
            }
        }
        release.signal()
        #expect(fired.value == 1)
        #expect(scheduler.now == Date(timeIntervalSinceReferenceDate: 2))
        #expect(warnings.count == 1)
    }

    /// A block on a thread outside every world is not the world's: its readings are real.
    @Test(.virtualTime) func blocksSubmittedOutsideTheWorldStayReal() async {
        try? await Task.sleep(for: .seconds(86_400))
        let before = Date(timeIntervalSinceNow: 0)
        #expect(before == Date(timeIntervalSinceReferenceDate: 86_400))
        let outside = await withCheckedContinuation { (done: CheckedContinuation<Date, Never>) in
            Thread {
                DispatchQueue.global().async { done.resume(returning: Date()) }
            }.start()
        }
        #expect(outside.timeIntervalSinceReferenceDate > 86_400 * 365)
    }
}

/// A `@MainActor` search model whose backend completes through Dispatch: the commonest border of
/// the virtual world.
@MainActor final class CompletionSearchModel {
    var results: [String] = []
    private var search: Task<Void, Never>?
    let backend: DispatchBackend

    init(backend: DispatchBackend) {
        self.backend = backend
    }

    func queryChanged(_ query: String) {
        search?.cancel()
        search = Task {
            try? await Task.sleep(for: .milliseconds(300))
            guard !Task.isCancelled else { return }
            results = await backend.search(query)
        }
    }
}

/// A stub client that answers on a global queue, at once or after `latency`.
struct DispatchBackend: Sendable {
    let latency: DispatchTimeInterval?

    func search(_ query: String, completion: @escaping @Sendable ([String]) -> Void) {
        if let latency {
            DispatchQueue.global().asyncAfter(deadline: .now() + latency) { completion([query + "!"]) }
        } else {
            DispatchQueue.global().async { completion([query + "!"]) }
        }
    }

    func search(_ query: String) async -> [String] {
        await withCheckedContinuation { answer in search(query) { answer.resume(returning: $0) } }
    }
}

// snippet: world-dispatch-completion-handler
// A client as legacy code writes one: it answers on a Dispatch queue.
struct LegacyClient: Sendable {
    func fetch(_ completion: @escaping @Sendable ([String]) -> Void) {
        let latency = DispatchTime.now() + .milliseconds(80)
        DispatchQueue.global().asyncAfter(deadline: latency) {
            completion(["a", "b"])
        }
    }
}

@Test(.virtualTime) func fetchesThroughDispatch() async {
    let start = ContinuousClock.now
    // Pending meanwhile, and never first:
    let timeout = Task { try await Task.sleep(for: .seconds(1)) }
    let items = await withCheckedContinuation { done in
        LegacyClient().fetch { done.resume(returning: $0) }
    }
    timeout.cancel()
    #expect(items == ["a", "b"])
    // Exactly the client's latency, in virtual time:
    #expect(start.duration(to: .now) == .milliseconds(80))
}
// snippet: end

/// The Dispatch interposer's seam (VirtualReadings.h): `pause` runs on this thread inside each
/// group leave that `body` makes in a world, between leaving and looking for notifications.
private enum AfterGroupLeave {
    static func whileRunning(_ pause: @escaping () -> Void, _ body: () -> Void) {
        let box = Unmanaged.passRetained(Box(pause))
        schedulers_after_group_leave_for_tests({ Unmanaged<Box>.fromOpaque($0!).takeUnretainedValue().pause() }, box.toOpaque())
        body()
        schedulers_after_group_leave_for_tests(nil, nil)
        box.release()
    }

    private final class Box {
        let pause: () -> Void
        init(_ pause: @escaping () -> Void) { self.pause = pause }
    }
}
