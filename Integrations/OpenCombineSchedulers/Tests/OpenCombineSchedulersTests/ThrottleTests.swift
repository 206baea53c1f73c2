import Foundation
import OpenCombineSchedulers
import Schedulers
import Testing

#if canImport(Combine)
import Combine
#else
import OpenCombine
#endif

@Suite("throttle in virtual time")
struct ThrottleTests {
    /// Values at 0, 0.2 and 0.5 with a 1 s window: the first goes out at once, the window's
    /// next emission is at 1 s, and `latest` picks which of the other two it carries.
    func run(latest: Bool) -> [String] {
        let test = TestScheduler()
        let subject = PassthroughSubject<Int, Never>()
        let values = Recorder<String>()
        let cancellable = subject.throttle(for: 1, scheduler: test.combine, latest: latest).sink {
            values.append("\($0)@\(test.now.timeIntervalSinceReferenceDate)")
        }
        subject.send(1)
        test.advance(by: 0.2)
        subject.send(2)
        test.advance(by: 0.3)
        subject.send(3)
        test.advance(by: 2)
        cancellable.cancel()
        return values.values
    }

    @Test func latestEmitsTheNewestValueOfEachWindow() {
        #expect(run(latest: true) == ["1@0.0", "3@1.0"])
    }

    @Test func notLatestEmitsTheFirstValueOfEachWindow() {
        #expect(run(latest: false) == ["1@0.0", "2@1.0"])
    }
}
