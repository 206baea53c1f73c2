import Foundation
import OpenCombineSchedulers
import Schedulers
import Testing

#if canImport(Combine)
import Combine
#else
import OpenCombine
#endif

@Suite("measureInterval in virtual time")
struct MeasureIntervalTests {
    @Test func measuresTheVirtualTimeBetweenValues() {
        let test = TestScheduler()
        let subject = PassthroughSubject<Void, Never>()
        let intervals = Recorder<TimeInterval>()
        let cancellable = subject.measureInterval(using: test.combine).sink { intervals.append($0.timeInterval) }
        test.advance(by: 1)
        subject.send()
        test.advance(by: 2.5)
        subject.send()
        subject.send()
        #expect(intervals.values == [1, 2.5, 0])
        cancellable.cancel()
    }
}
