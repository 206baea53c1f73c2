import Foundation
import OpenCombineSchedulers
import Schedulers
import Testing

#if canImport(Combine)
import Combine
#else
import OpenCombine
#endif

@Suite("the immediate scheduler")
struct ImmediateSchedulerTests {
    @Test func receiveOnDeliversInlineOnTheSendingThread() {
        let subject = PassthroughSubject<Int, Never>()
        let received = Recorder<Int>()
        let cancellable = subject.receive(on: Schedulers.Scheduler.immediate.combine).sink { received.append($0) }
        subject.send(1)
        #expect(received.values == [1])
        cancellable.cancel()
    }

    @Test func delayBlocksTheSenderUntilTheDateAsInRAC() {
        let subject = PassthroughSubject<Int, Never>()
        let received = Recorder<Int>()
        let cancellable = subject.delay(for: .milliseconds(20), scheduler: Schedulers.Scheduler.immediate.combine)
            .sink { received.append($0) }
        let start = Date()
        subject.send(1)
        #expect(received.values == [1], "delivered before send returned")
        #expect(Date().timeIntervalSince(start) >= 0.02)
        cancellable.cancel()
    }
}
