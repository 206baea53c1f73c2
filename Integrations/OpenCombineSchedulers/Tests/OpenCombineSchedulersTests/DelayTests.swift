import Foundation
import OpenCombineSchedulers
import Schedulers
import Testing

#if canImport(Combine)
import Combine
#else
import OpenCombine
#endif

@Suite("delay in virtual time")
struct DelayTests {
    @Test func delaysValuesAndCompletionByTheInterval() {
        let test = TestScheduler()
        let subject = PassthroughSubject<Int, Never>()
        let values = Recorder<(Int, Date)>()
        let finished = Recorder<Date>()
        let cancellable = subject.delay(for: .seconds(2), scheduler: test.combine).sink(
            receiveCompletion: { _ in finished.append(test.now) },
            receiveValue: { values.append(($0, test.now)) })
        subject.send(1)
        test.advance(by: 1)
        subject.send(2)
        subject.send(completion: .finished)
        test.advance(by: 0.999)
        #expect(values.values.isEmpty)
        test.advance(by: 0.001)
        #expect(values.values.map(\.0) == [1])
        test.advance(by: 1)
        #expect(values.values.map(\.0) == [1, 2])
        #expect(values.values.map(\.1) == [Date(timeIntervalSinceReferenceDate: 2), Date(timeIntervalSinceReferenceDate: 3)])
        #expect(finished.values == [Date(timeIntervalSinceReferenceDate: 3)])
        cancellable.cancel()
    }
}
