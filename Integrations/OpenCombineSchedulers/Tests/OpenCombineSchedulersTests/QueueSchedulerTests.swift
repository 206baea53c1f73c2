import Foundation
import OpenCombineSchedulers
import Schedulers
import Testing

#if canImport(Combine)
import Combine
#else
import OpenCombine
#endif

/// OpenCombine's operators on a real QueueScheduler. Only lower bounds on time are asserted;
/// the waits' timeouts bound a failure. Values whose order matters are sent from one action on
/// the queue, where none of the operator's own scheduled work can run between them, however
/// slow the test's thread.
@Suite("operators on a QueueScheduler, in real time")
struct QueueSchedulerTests {
    @Test func receiveOnDeliversInOrderOnTheQueueAsTheCurrentScheduler() {
        let queue = TargetQueueScheduler(name: "receive-on")
        let subject = PassthroughSubject<Int, Never>()
        let received = Recorder<(Int, Bool)>()
        let cancellable = subject.receive(on: queue.combine).sink { received.append(($0, currentScheduler === queue)) }
        for value in 1...100 { subject.send(value) }
        #expect(received.wait(for: 100))
        #expect(received.values.map(\.0) == Array(1...100))
        #expect(received.values.allSatisfy { $0.1 })
        cancellable.cancel()
    }

    @Test func subscribeOnSubscribesOnTheQueue() {
        let queue = TargetQueueScheduler(name: "subscribe-on")
        let sideEffects = Recorder<Bool>()
        let cancellable = Deferred { () -> Just<Int> in
            sideEffects.append(currentScheduler === queue)
            return Just(1)
        }
        .subscribe(on: queue.combine)
        .sink { _ in }
        #expect(sideEffects.wait(for: 1))
        #expect(sideEffects.values == [true])
        cancellable.cancel()
    }

    @Test func delayWaitsAtLeastTheInterval() {
        let queue = TargetQueueScheduler(name: "delay")
        let subject = PassthroughSubject<Date, Never>()
        let lateness = Recorder<TimeInterval>()
        let cancellable = subject.delay(for: .milliseconds(50), scheduler: queue.combine).sink { sent in
            lateness.append(Date().timeIntervalSince(sent))
        }
        subject.send(Date())
        #expect(lateness.wait(for: 1))
        #expect(lateness.values[0] >= 0.05)
        cancellable.cancel()
    }

    @Test func debounceEmitsOnlyTheLastValueOfABurstAfterTheInterval() {
        let queue = TargetQueueScheduler(name: "debounce")
        // A subject is not Sendable; here only the queue's serial actions send to it.
        nonisolated(unsafe) let subject = PassthroughSubject<Int, Never>()
        let received = Recorder<(Int, Date)>()
        let cancellable = subject.debounce(for: .milliseconds(50), scheduler: queue.combine).sink {
            received.append(($0, Date()))
        }
        let lastSent = Recorder<Date>()
        queue.schedule {
            for value in 1...4 { subject.send(value) }
            lastSent.append(Date())  // before the last send, which starts the interval
            subject.send(5)
        }
        #expect(received.wait(for: 1))
        #expect(received.values[0].0 == 5)
        #expect(received.values[0].1.timeIntervalSince(lastSent.values[0]) >= 0.05)
        cancellable.cancel()
    }

    @Test func throttleEmitsTheFirstValueThenWaitsAWindow() {
        let queue = TargetQueueScheduler(name: "throttle")
        // A subject is not Sendable; here only the queue's serial actions send 2 and 3.
        nonisolated(unsafe) let subject = PassthroughSubject<Int, Never>()
        let received = Recorder<(Int, Date)>()
        let cancellable = subject.throttle(for: .milliseconds(50), scheduler: queue.combine, latest: true).sink {
            received.append(($0, Date()))
        }
        subject.send(1)
        #expect(received.wait(for: 1))
        // Both in one action: even a window already over cannot emit 2 before 3 replaces it.
        queue.schedule {
            subject.send(2)
            subject.send(3)
        }
        #expect(received.wait(for: 2))
        #expect(received.values.map(\.0) == [1, 3])
        #expect(received.values[1].1.timeIntervalSince(received.values[0].1) >= 0.05)
        cancellable.cancel()
    }

    @Test func timeoutFinishesAfterAtLeastTheInterval() {
        let queue = TargetQueueScheduler(name: "timeout")
        let finished = Recorder<Date>()
        let start = Date()
        let cancellable = Empty<Int, Never>(completeImmediately: false)
            .timeout(.milliseconds(50), scheduler: queue.combine)
            .sink(receiveCompletion: { _ in finished.append(Date()) }, receiveValue: { _ in })
        #expect(finished.wait(for: 1))
        #expect(finished.values[0].timeIntervalSince(start) >= 0.05)
        cancellable.cancel()
    }

    @Test func measureIntervalMeasuresAtLeastTheScheduledGap() {
        let queue = TargetQueueScheduler(name: "measure-interval")
        // A subject is not Sendable; here only the queue's serial actions send to it.
        nonisolated(unsafe) let subject = PassthroughSubject<Void, Never>()
        let intervals = Recorder<TimeInterval>()
        let cancellable = subject.measureInterval(using: queue.combine).sink { intervals.append($0.timeInterval) }
        queue.schedule {
            subject.send()
            queue.schedule(afterDelay: 0.05) { subject.send() }
        }
        #expect(intervals.wait(for: 2))
        #expect(intervals.values[1] >= 0.05)
        cancellable.cancel()
    }

    @Test func cancellingARepeatingActionStopsItsTicks() {
        let queue = TargetQueueScheduler(name: "repeating")
        let scheduler = queue.combine
        let ticks = Recorder<Bool>()
        // Not Sendable; only the one action below cancels it.
        nonisolated(unsafe) let cancellable = scheduler.schedule(
            after: scheduler.now, interval: .milliseconds(5), tolerance: .zero
        ) {
            ticks.append(currentScheduler === queue)
        }
        #expect(ticks.wait(for: 3))
        // Cancelled from the ticks' own serial queue, so that no tick is running meanwhile and
        // the count read after cancel() is final. A later action on the same queue: once it
        // has run, any tick that was due has too.
        let countAtCancel = Recorder<Int>()
        let barrier = Recorder<Bool>()
        queue.schedule {
            cancellable.cancel()
            countAtCancel.append(ticks.values.count)
            queue.schedule(afterDelay: 0.05) { barrier.append(true) }
        }
        #expect(barrier.wait(for: 1))
        #expect(ticks.values.count == countAtCancel.values[0], "no tick after cancel() returned")
        #expect(ticks.values.allSatisfy { $0 })
    }
}
