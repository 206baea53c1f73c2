import Foundation
import Schedulers
import Testing
import TestSupport

/// One thread drives a TestScheduler (step, step(n), advance) while 4 others schedule one-shot,
/// delayed, far-future and repeating actions on it and dispose a random third of them.
///
/// Far-future actions (due 10^12 virtual seconds ahead, out of reach of the driver's steps of at most 1 s) cannot start before the final drive,
/// which begins only after every producer has finished: disposing one is certainly "before it
/// started", so it must never run.
@Suite(.ownThread, .timeLimit(.minutes(5))) struct TestSchedulerContentionTests {
    static let producers = 4
    static let perProducer = stressCount(5_000)
    static let farFuture: TimeInterval = 1e12  // unreachable by the driver's small steps

    struct Ledger {
        var runs: [UInt8]
        var disposed: [Bool]
        var farFuture: [Bool]
        /// Virtual times seen by running actions, in the order they ran (all on the driver).
        var times: [TestScheduler.Clock.Instant] = []
        var tooEarly = 0
        var notCurrent = 0
        var offDriver = 0
        /// Repeating actions: ticks, and the ticks counted when `dispose()` returned.
        var ticks: [Int]
        var ticksAtDispose: [Int?]

        init(count: Int, repeating: Int) {
            runs = Array(repeating: 0, count: count)
            disposed = Array(repeating: false, count: count)
            farFuture = Array(repeating: false, count: count)
            ticks = Array(repeating: 0, count: repeating)
            ticksAtDispose = Array(repeating: nil, count: repeating)
        }
    }

    @Test func drivenFromOneThreadWhileFourScheduleAndDispose() {
        let seed: UInt64 = 0xC0_7E57
        let scheduler = TestScheduler()
        let total = Self.producers * Self.perProducer
        let repeatingPerProducer = 10
        let ledger = Locked(Ledger(count: total, repeating: Self.producers * repeatingPerProducer))
        let producersLeft = Locked(Self.producers)
        let driver = Locked<ObjectIdentifier?>(nil)
        // The fence below needs `now` to creep, never jump: `step()` runs the earliest pending
        // action wherever it is, so with only far-future actions pending a fast driver jumped
        // 10^12 s ahead and ran fenced actions before their disposal (seen in CI). An anchor due
        // every 0.5 s keeps something near pending until every producer is done.
        let anchor = scheduler.schedule(after: scheduler.now, repeatingEvery: 0.5) {}!

        runOnThreads(Self.producers + 1) { worker in
            if worker == Self.producers {
                driver.withLock { $0 = ObjectIdentifier(Thread.current) }
                var random = SeededRandom(seed: seed)
                while producersLeft.value > 0 {
                    switch random.next() % 4 {
                    case 0: scheduler.step()
                    case 1: scheduler.step(Int(random.next() % 8))
                    case 2: scheduler.advance(by: Double(random.next() % 100) / 100)
                    default: scheduler.advance(to: scheduler.now.addingTimeInterval(0.05))
                    }
                }
                // Every producer is done: run everything left, far-future actions included.
                anchor.dispose()
                scheduler.advance(by: 2 * Self.farFuture)
                scheduler.stepAll()
                return
            }
            var random = SeededRandom(seed: seed &+ UInt64(worker + 1) &* 0x9E37_79B9)
            var mine: [(index: Int, disposable: any Disposable)] = []
            for offset in 0..<Self.perProducer {
                let index = worker * Self.perProducer + offset
                // Read as the clock's exact instants, not as dates: a date is rounded to a
                // `Double`, and `now` may read the date a test gave for its time (the driver's
                // `advance(to: now + 0.05)`), which lies within a spacing of it either way, so two
                // dates compared a spacing or two apart say nothing about the times they stand for.
                let before = scheduler.clock.now
                let kind = random.next() % 3
                // In hundredths of a second, so that the delay has an exact `Duration` too.
                let hundredths: Int64 = kind == 0 ? 0 : kind == 1 ? Int64(random.next() % 1000) : Int64(Self.farFuture) * 100
                let delay = TimeInterval(hundredths) / 100
                let action: @Sendable () -> Void = {
                    let now = scheduler.clock.now
                    let isCurrent = Scheduler.current === scheduler
                    let isDriver = driver.value == ObjectIdentifier(Thread.current)
                    ledger.withLock { state in
                        state.runs[index] &+= 1
                        state.times.append(now)
                        // Virtual time adds a delay's decimal value exactly.
                        if now < before.advanced(by: .milliseconds(hundredths * 10)) { state.tooEarly += 1 }
                        if !isCurrent { state.notCurrent += 1 }
                        if !isDriver { state.offDriver += 1 }
                    }
                }
                if kind == 2 { ledger.withLock { $0.farFuture[index] = true } }
                let disposable = kind == 0 ? scheduler.schedule(action)! : scheduler.schedule(afterDelay: delay, action)!
                mine.append((index, disposable))
                // Dispose a random third, some at once, some a little later.
                if random.next() % 3 == 0 {
                    let victim = mine.remove(at: Int(random.next() % UInt64(mine.count)))
                    victim.disposable.dispose()
                    ledger.withLock { $0.disposed[victim.index] = true }
                }
            }
            // Repeating actions, disposed from this thread after a few virtual seconds.
            for slot in 0..<repeatingPerProducer {
                let index = worker * repeatingPerProducer + slot
                let timer = scheduler.schedule(after: scheduler.now, repeatingEvery: 0.25) {
                    ledger.withLock { $0.ticks[index] += 1 }
                }!
                _ = waitUntil(timeout: 30) { ledger.withLock { $0.ticks[index] >= 2 } }
                timer.dispose()
                ledger.withLock { $0.ticksAtDispose[index] = $0.ticks[index] }
            }
            producersLeft.withLock { $0 -= 1 }
        }

        let state = ledger.value
        var ranTwice = 0, lost = 0, ranAfterDispose = 0, fencedDisposals = 0
        for index in 0..<total {
            if state.runs[index] > 1 { ranTwice += 1 }
            if !state.disposed[index] && state.runs[index] == 0 { lost += 1 }
            if state.disposed[index] && state.farFuture[index] {
                fencedDisposals += 1
                if state.runs[index] != 0 { ranAfterDispose += 1 }
            }
        }
        #expect(ranTwice == 0)
        #expect(lost == 0)
        #expect(ranAfterDispose == 0)
        #expect(fencedDisposals > 0)
        #expect(state.tooEarly == 0, "actions ran before their due virtual time")
        #expect(state.notCurrent == 0)
        #expect(state.offDriver == 0, "actions ran off the driving thread")
        #expect(zip(state.times, state.times.dropFirst()).allSatisfy { $0 <= $1 }, "virtual time went backwards")
        for index in state.ticks.indices {
            let atDispose = state.ticksAtDispose[index]!
            #expect(state.ticks[index] <= atDispose + 1, "repeating \(index): \(state.ticks[index]) ticks, \(atDispose) when disposed")
        }
        #expect(scheduler.pendingCount == 0)
    }
}
