import Foundation
import Schedulers
import Testing
import TestSupport

/// Many 1 ms repeating timers disposed while they tick. From the timer's own queue (inside a
/// tick, or from another action on the same serial queue) no tick runs after `dispose()`
/// returns. From another thread, at most the one tick already running completes.
@Suite(.ownThread, .timeLimit(.minutes(5)), .serialized) struct RepeatingTimerStressTests {
    static let timers = 200

    struct TimerLog {
        var ticks = 0
        var disposedOnQueue = false
        var ticksAfterDispose = 0
        var disposable: (any Disposable)?
    }

    @Test(arguments: [false, true])
    func disposedFromItsOwnQueue(fromInsideATick: Bool) {
        let target = DispatchQueue(label: "timers.concurrent", attributes: .concurrent)
        let schedulers = (0..<4).map { TargetQueueScheduler(name: "timers.\($0)", targetQueue: target) }
        var random = SeededRandom(seed: fromInsideATick ? 0x71C4 : 0x71C5)
        let logs = (0..<Self.timers).map { _ in Locked(TimerLog()) }

        for index in 0..<Self.timers {
            let scheduler = schedulers[index % schedulers.count]
            let log = logs[index]
            let stopAfter = Int.random(in: 1...5, using: &random)
            let disposable = scheduler.schedule(after: Date(), repeatingEvery: 0.001) {
                let disposable = log.withLock { log -> (any Disposable)? in
                    log.ticks += 1
                    if log.disposedOnQueue { log.ticksAfterDispose += 1 }
                    return fromInsideATick && log.ticks >= stopAfter && !log.disposedOnQueue ? log.disposable : nil
                }
                if let disposable {
                    disposable.dispose()
                    log.withLock { $0.disposedOnQueue = true }
                }
            }
            log.withLock { $0.disposable = disposable }
            if !fromInsideATick {
                // Another action on the same serial queue disposes it, a few ticks in: it looks
                // every millisecond until the timer has ticked that often (a delay alone could
                // beat the first tick on a loaded machine, and the test would check nothing).
                Self.dispose(log, on: scheduler, after: stopAfter)
            }
        }

        let allDisposed = waitUntil(timeout: 60) { logs.allSatisfy { $0.value.disposedOnQueue } }
        #expect(allDisposed)
        flush(schedulers)
        for (index, log) in logs.enumerated() {
            let log = log.value
            #expect(log.ticksAfterDispose == 0, "timer \(index) ticked \(log.ticksAfterDispose) times after dispose returned")
            #expect(log.ticks >= 1)
            #expect(log.disposable!.isDisposed)
        }
    }

    /// Disposes the timer of `log` from an action on `scheduler` once it has ticked `ticks` times.
    private static func dispose(_ log: Locked<TimerLog>, on scheduler: Scheduler, after ticks: Int) {
        scheduler.schedule(afterDelay: 0.001) {
            guard log.value.ticks >= ticks else { return dispose(log, on: scheduler, after: ticks) }
            log.value.disposable!.dispose()
            log.withLock { $0.disposedOnQueue = true }
        }
    }

    @Test func disposedFromAnotherThread() {
        let target = DispatchQueue(label: "timers.other.concurrent", attributes: .concurrent)
        let schedulers = (0..<4).map { TargetQueueScheduler(name: "timers.other.\($0)", targetQueue: target) }
        let ticks = (0..<Self.timers).map { _ in Locked(0) }
        let disposables = (0..<Self.timers).map { index in
            schedulers[index % schedulers.count].schedule(after: Date(), repeatingEvery: 0.001) {
                ticks[index].withLock { $0 += 1 }
            }!
        }
        // Dispose from two other threads, each timer once it has ticked at least once, and note
        // how many ticks had been counted when `dispose()` returned.
        let countedAtDispose = Locked(Array(repeating: 0, count: Self.timers))
        runOnThreads(2) { worker in
            for index in stride(from: worker, to: Self.timers, by: 2) {
                _ = waitUntil(timeout: 30) { ticks[index].value >= 1 }
                disposables[index].dispose()
                let counted = ticks[index].value
                countedAtDispose.withLock { $0[index] = counted }
            }
        }
        flush(schedulers)
        let counted = countedAtDispose.value
        for index in 0..<Self.timers {
            let final = ticks[index].value
            #expect(final >= 1)
            #expect(final <= counted[index] + 1, "timer \(index): \(final) ticks, \(counted[index]) counted when dispose returned")
            #expect(disposables[index].isDisposed)
        }
    }

    /// Waits until every scheduler has run everything queued so far (their queues are serial).
    private func flush(_ schedulers: [TargetQueueScheduler]) {
        let group = DispatchGroup()
        for scheduler in schedulers {
            group.enter()
            scheduler.schedule { group.leave() }
        }
        #expect(group.wait(timeout: .now() + 60) == .success)
    }
}
