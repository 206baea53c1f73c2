import Foundation
import OpenCombineSchedulers
import Schedulers
import Testing

#if canImport(Combine)
import Combine
#else
import OpenCombine
#endif

@Suite("debounce in virtual time")
struct DebounceTests {
    @Test func emitsTheLastValueOnceTheSourceHasBeenQuietForTheInterval() {
        let test = TestScheduler()
        let subject = PassthroughSubject<Int, Never>()
        let values = Recorder<(Int, Date)>()
        let cancellable = subject.debounce(for: 1, scheduler: test.combine).sink { values.append(($0, test.now)) }
        subject.send(1)
        test.advance(by: 0.5)
        subject.send(2)
        test.advance(by: 0.5)
        subject.send(3)
        test.advance(by: 0.999)
        #expect(values.values.isEmpty)
        test.advance(by: 0.001)
        subject.send(4)
        test.advance(by: 5)
        #expect(values.values.map(\.0) == [3, 4])
        #expect(values.values.map(\.1) == [Date(timeIntervalSinceReferenceDate: 2), Date(timeIntervalSinceReferenceDate: 3)])
        #expect(test.pendingCount == 0, "debounce cancels its repeating timer after the first run")
        cancellable.cancel()
    }

    @Test func aZeroIntervalDoesNotTrapAndEmitsOnce() {
        let test = TestScheduler()
        let subject = PassthroughSubject<Int, Never>()
        let values = Recorder<Int>()
        let cancellable = subject.debounce(for: 0, scheduler: test.combine).sink { values.append($0) }
        subject.send(7)
        test.advance(by: 10)
        #expect(values.values == [7])
        #expect(test.pendingCount == 0)
        cancellable.cancel()
    }
}
