import Foundation
import Schedulers
import Testing
import TestSupport

/// 8 threads × 50,000 one-shot actions on one queue scheduler while a ninth thread disposes a
/// random third of them: every action runs exactly once unless disposed, none runs twice, and none
/// runs after a `dispose()` that is known to have come before it started.
///
/// "Known to have come before it started": the scheduler's serial queue is plugged (its first
/// action blocks) until the disposing thread has handled half of the actions, so everything that
/// thread disposes before it unplugs the queue had certainly not started, and must never run.
/// After it unplugs, disposals race with running actions, and only the accounting is checked:
/// ran + disposed-before-start == scheduled.
@Suite(.ownThread, .timeLimit(.minutes(5)), .serialized) struct ExactlyOnceStressTests {
    static let threads = 8
    static let perThread = stressCount(50_000)

    @Test func scheduleOnQueueScheduler() throws {
        let scheduler = QueueScheduler(name: "stress.serial", queue: DispatchQueue(label: "stress.serial"))
        try checkExactlyOnce(on: scheduler, seed: 0x5EED_0001, delay: nil)
    }

    @Test func scheduleOnTargetQueueSchedulerOverConcurrentQueue() throws {
        let target = DispatchQueue(label: "stress.concurrent", attributes: .concurrent)
        let scheduler = TargetQueueScheduler(name: "stress.target", targetQueue: target)
        try checkExactlyOnce(on: scheduler, seed: 0x5EED_0002, delay: nil)
    }

    @Test func scheduleAfterZeroToFiveMillisecondsOnQueueScheduler() throws {
        let scheduler = QueueScheduler(name: "stress.after", queue: DispatchQueue(label: "stress.after"))
        try checkExactlyOnce(on: scheduler, seed: 0x5EED_0003, delay: 0.005)
    }

    @Test func scheduleAfterZeroToFiveMillisecondsOnTargetQueueScheduler() throws {
        let target = DispatchQueue(label: "stress.after.concurrent", attributes: .concurrent)
        let scheduler = TargetQueueScheduler(name: "stress.after.target", targetQueue: target)
        try checkExactlyOnce(on: scheduler, seed: 0x5EED_0004, delay: 0.005)
    }

    /// What every action and every disposal records, under one lock.
    struct Ledger {
        var runs: [UInt8]
        var disposed: [Bool]
        /// Disposed while the queue was still plugged: must never run.
        var mustNotRun: [Bool]
        var disposedCount = 0
        /// Actions that ran and are not (yet) disposed; equals `total - disposedCount` once every
        /// undisposed action has run.
        var ranUndisposed = 0
        var notCurrent = 0

        init(count: Int) {
            runs = Array(repeating: 0, count: count)
            disposed = Array(repeating: false, count: count)
            mustNotRun = Array(repeating: false, count: count)
        }
    }

    /// - Parameter delay: nil for `schedule(_:)`; else `schedule(after:)` with a random delay in
    ///   `0...delay` seconds.
    func checkExactlyOnce(on scheduler: QueueScheduler, seed: UInt64, delay: TimeInterval?) throws {
        let total = Self.threads * Self.perThread
        let ledger = Locked(Ledger(count: total))
        let handoff = Locked<[(index: Int, disposable: any Disposable)]>([])
        let producersLeft = Locked(Self.threads)
        let latestDeadline = Locked(Date())

        // The plug: the queue is serial (a TargetQueueScheduler's own queue is serial even over a
        // concurrent target), so nothing queued behind this starts until `gate` is signalled.
        let gate = DispatchSemaphore(value: 0)
        scheduler.schedule { gate.wait() }

        runOnThreads(Self.threads + 1) { worker in
            if worker == Self.threads {
                dispose(from: handoff, producersLeft: producersLeft, ledger: ledger, total: total, seed: seed, gate: gate)
                return
            }
            var random = SeededRandom(seed: seed &+ UInt64(worker) &* 0x9E37)
            var batch: [(index: Int, disposable: any Disposable)] = []
            var latest = Date.distantPast
            for offset in 0..<Self.perThread {
                let index = worker * Self.perThread + offset
                let action: @Sendable () -> Void = {
                    let isCurrent = Scheduler.current === scheduler
                    ledger.withLock { state in
                        state.runs[index] &+= 1
                        if !state.disposed[index] { state.ranUndisposed += 1 }
                        if !isCurrent { state.notCurrent += 1 }
                    }
                }
                let disposable: (any Disposable)?
                if let delay {
                    let date = Date(timeIntervalSinceNow: Double.random(in: 0...delay, using: &random))
                    latest = max(latest, date)
                    disposable = scheduler.schedule(after: date, action)
                } else {
                    disposable = scheduler.schedule(action)
                }
                batch.append((index, disposable!))
                if batch.count == 256 || offset == Self.perThread - 1 {
                    handoff.withLock { $0.append(contentsOf: batch) }
                    batch.removeAll(keepingCapacity: true)
                }
            }
            latestDeadline.withLock { $0 = max($0, latest) }
            producersLeft.withLock { $0 -= 1 }
        }

        // Every action that is not disposed must run; generous bound, not a timing assertion.
        let allRan = waitUntil(timeout: 120) {
            ledger.withLock { $0.ranUndisposed == total - $0.disposedCount }
        }
        #expect(allRan, "not every undisposed action ran")
        // Flush: let anything still queued (or due) run, so a wrongly run disposed action shows.
        let flushed = DispatchSemaphore(value: 0)
        if delay != nil {
            scheduler.schedule(after: latestDeadline.value.addingTimeInterval(0.1)) {
                scheduler.schedule { flushed.signal() }
            }
        } else {
            scheduler.schedule { flushed.signal() }
        }
        #expect(flushed.wait(timeout: .now() + 120) == .success)

        let state = ledger.value
        var ranTwice: [Int] = [], lost: [Int] = [], ranAfterDispose: [Int] = []
        var ran = 0, disposedBeforeStart = 0, fenced = 0
        for index in 0..<total {
            let runs = Int(state.runs[index])
            ran += min(runs, 1)
            if runs > 1 { ranTwice.append(index) }
            if state.disposed[index] && runs == 0 { disposedBeforeStart += 1 }
            if !state.disposed[index] && runs == 0 { lost.append(index) }
            if state.mustNotRun[index] {
                fenced += 1
                if runs != 0 { ranAfterDispose.append(index) }
            }
        }
        #expect(ranTwice.isEmpty, "ran twice: \(ranTwice.prefix(10)) (seed \(seed))")
        #expect(lost.isEmpty, "never ran and never disposed: \(lost.prefix(10)) (seed \(seed))")
        #expect(ranAfterDispose.isEmpty, "ran after a dispose that came before it started: \(ranAfterDispose.prefix(10)) (seed \(seed))")
        #expect(
            ran + disposedBeforeStart == total,
            """
            exactly-once \(scheduler.name): scheduled \(total), ran \(ran), disposed before start \
            \(disposedBeforeStart) (\(fenced) while plugged)
            """)
        #expect(state.notCurrent == 0, "actions that did not run as the current scheduler")
        // The test exercised both phases: disposals while plugged, and a third disposed overall.
        #expect(fenced > 0)
        #expect(state.disposedCount > total / 5)
    }

    /// The disposing thread: disposes a random third of what the producers hand over, and unplugs
    /// the queue once it has handled half of all the actions.
    private func dispose(
        from handoff: Locked<[(index: Int, disposable: any Disposable)]>, producersLeft: Locked<Int>,
        ledger: Locked<Ledger>, total: Int, seed: UInt64, gate: DispatchSemaphore
    ) {
        var random = SeededRandom(seed: seed ^ 0xD15B05E)
        var handled = 0
        var plugged = true
        while true {
            let done = producersLeft.value == 0
            let items = handoff.withLock { items in
                defer { items.removeAll(keepingCapacity: true) }
                return items
            }
            if items.isEmpty {
                if done { break }
                Thread.sleep(forTimeInterval: 0.0001)  // nothing handed over yet; not synchronisation
                continue
            }
            for item in items {
                if random.next() % 3 == 0 {
                    item.disposable.dispose()
                    let fenced = plugged
                    ledger.withLock { state in
                        state.disposed[item.index] = true
                        state.disposedCount += 1
                        if state.runs[item.index] > 0 { state.ranUndisposed -= 1 }
                        if fenced { state.mustNotRun[item.index] = true }
                    }
                }
                handled += 1
                if plugged && handled >= total / 2 {
                    plugged = false
                    gate.signal()
                }
            }
        }
        if plugged { gate.signal() }
    }
}
