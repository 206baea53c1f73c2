import Foundation
import OpenCombineSchedulers
import Schedulers
import Testing

#if canImport(Combine)
import Combine
#else
import OpenCombine
#endif

/// receive(on:) and subscribe(on:) on a TestScheduler: nothing moves until the test drives it.
@Suite("receive(on:) and subscribe(on:) in virtual time")
struct ReceiveOnSubscribeOnTests {
    @Test func receiveOnDeliversWhenTheSchedulerRunsAsTheCurrentScheduler() {
        let test = TestScheduler()
        let subject = PassthroughSubject<Int, Never>()
        let received = Recorder<(Int, Bool)>()
        let cancellable = subject.receive(on: test.combine).sink { value in
            received.append((value, currentScheduler === test))
        }
        subject.send(1)
        subject.send(2)
        #expect(received.values.isEmpty)
        #expect(test.pendingCount == 2)
        test.advance(by: 0)
        #expect(received.values.map(\.0) == [1, 2])
        #expect(received.values.allSatisfy { $0.1 })
        cancellable.cancel()
    }

    @Test func subscribeOnRunsTheSubscriptionSideEffectsOnTheScheduler() {
        let test = TestScheduler()
        let sideEffects = Recorder<Bool>()
        let received = Recorder<Int>()
        let cancellable = Deferred { () -> Just<Int> in
            sideEffects.append(currentScheduler === test)
            return Just(42)
        }
        .subscribe(on: test.combine)
        .sink { received.append($0) }
        #expect(sideEffects.values.isEmpty, "subscribing happens only when the scheduler runs")
        test.advance(by: 0)
        #expect(sideEffects.values == [true])
        #expect(received.values == [42])
        cancellable.cancel()
    }

    @Test func cancellingBeforeTheSchedulerRunsDeliversNothing() {
        let test = TestScheduler()
        let subject = PassthroughSubject<Int, Never>()
        let received = Recorder<Int>()
        let cancellable = subject.receive(on: test.combine).sink { received.append($0) }
        subject.send(1)
        cancellable.cancel()
        test.advance(by: 1)
        #expect(received.values.isEmpty)
    }
}
