import Foundation
import OpenCombineSchedulers
import Schedulers
import Testing

#if canImport(Combine)
import Combine
#else
import OpenCombine
#endif

@Suite("timeout in virtual time")
struct TimeoutTests {
    struct TimedOut: Error, Equatable {}

    @Test func finishesWhenNoValueArrivesWithinTheIntervalCountingFromTheLastValue() {
        let test = TestScheduler()
        let subject = PassthroughSubject<Int, Never>()
        let values = Recorder<Int>()
        let finished = Recorder<Date>()
        let cancellable = subject.timeout(1, scheduler: test.combine).sink(
            receiveCompletion: { _ in finished.append(test.now) }, receiveValue: { values.append($0) })
        test.advance(by: 0.5)
        subject.send(1)
        test.advance(by: 0.999)
        #expect(finished.values.isEmpty, "the value restarted the clock")
        test.advance(by: 0.001)
        #expect(values.values == [1])
        #expect(finished.values == [Date(timeIntervalSinceReferenceDate: 1.5)])
        cancellable.cancel()
    }

    @Test func failsWithTheCustomError() {
        let test = TestScheduler()
        let failures = Recorder<Bool>()
        let cancellable = Empty<Int, TimedOut>(completeImmediately: false)
            .timeout(.seconds(3), scheduler: test.combine, customError: { TimedOut() })
            .sink(receiveCompletion: { completion in
                if case .failure(let error) = completion { failures.append(error == TimedOut()) }
            }, receiveValue: { _ in })
        test.advance(by: 2.5)
        #expect(failures.values.isEmpty)
        test.advance(by: 0.5)
        #expect(failures.values == [true])
        cancellable.cancel()
    }
}
