import Foundation
import SchedulersTestSupport
import Testing
import TestSupport

// The contract's three `.virtualTime` examples, with their bodies as written, as a hundred
// cases each (ten under a sanitizer; `.ci/run` runs a thousand each in a step of its own, with
// SCHEDULERS_CONTRACT_CASES). Swift Testing runs the cases of the three tests in parallel in one
// process, so every case shares the runtime's hooks with hundreds of other worlds: each must
// still see exactly its own time.

private let cases = 0..<stressCount(ProcessInfo.processInfo.environment["SCHEDULERS_CONTRACT_CASES"].flatMap(Int.init) ?? 100)

@Suite(.ownThread, .timeLimit(.minutes(5))) struct ContractExamplesInParallelTests {
    @Test(.virtualTime, arguments: cases) @MainActor func debounces(run: Int) async throws {
        let start = ContinuousClock.now                  // virtual inside the test
        let model = SearchModel(backend: { ["\($0)!"] })
        model.queryChanged("s")
        try await Task.sleep(for: .milliseconds(100))    // the test lets 100 ms pass
        model.queryChanged("sw")
        try await Task.sleep(for: .milliseconds(299))
        #expect(model.results == [])
        try await Task.sleep(for: .milliseconds(1))
        #expect(model.results == ["sw!"])
        #expect(start.duration(to: .now) == .milliseconds(400))
    }

    @Test(.virtualTime(startDate: Date(timeIntervalSince1970: 1_700_000_000)), arguments: cases)
    func tokenExpires(run: Int) async throws {
        let issued = Date()                               // 2023-11-14 22:13:20 UTC, every run
        try await Task.sleep(for: .seconds(3_600))
        #expect(Date().timeIntervalSince(issued) == 3_600)
        #expect(issued == Date(timeIntervalSince1970: 1_700_000_000))
    }

    @Test(.virtualTime(advancing: .manually), arguments: cases) func firesOnce(run: Int) async throws {
        let scheduler = try #require(TestScheduler.capturing)
        let fired = Counter()   // the contract's `Mutex`: the package's tests lock with `Lock`
        Task { try await Task.sleep(for: .seconds(1)); fired.increment() }
        await scheduler.clock.advance(by: .milliseconds(999))
        #expect(fired.value == 0)
        await scheduler.clock.advance(by: .milliseconds(1))
        #expect(fired.value == 1)
    }
}
