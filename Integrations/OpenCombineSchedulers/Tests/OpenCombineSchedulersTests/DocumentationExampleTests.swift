import Foundation
import OpenCombineSchedulers
import Schedulers
import Testing

#if canImport(Combine)
import Combine
#else
import OpenCombine
#endif

// The OpenCombine example of the "Testing with virtual time" article
// (Sources/Schedulers/Schedulers.docc/TestingWithVirtualTime.md), as a test that asserts what the
// article says. The article's block is a copy of the snippet region below (the root package's
// DocumentationSnippetTests compares them).

@Suite struct DocumentationExampleTests {
    @Test func debounceThroughTheAdapter() {
        // snippet: virtual-time-opencombine
        let test = TestScheduler()
        let subject = PassthroughSubject<Int, Never>()
        var values: [Int] = []
        let cancellable = subject.debounce(for: 1, scheduler: test.combine)
            .sink { values.append($0) }
        subject.send(1)
        test.advance(by: 0.5)
        subject.send(2)
        test.advance(by: 0.999)
        #expect(values == [])
        test.advance(by: 0.001)
        #expect(values == [2])
        // snippet: end
        cancellable.cancel()
    }
}
