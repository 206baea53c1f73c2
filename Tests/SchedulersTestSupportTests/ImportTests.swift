import Foundation
import SchedulersTestSupport
import Testing
import TestSupport

// What a test file gets from `import SchedulersTestSupport` alone, as the contract's examples
// are written: no import of Synchronization, no ambiguity between overloads.

@Suite(.ownThread, .timeLimit(.minutes(5))) struct ImportTests {
    /// `Mutex` and `Atomic` come with the import (Schedulers re-exports Synchronization): the
    /// contract's examples use `Mutex` with no import of their own. (`Atomic` here: the
    /// package's own tests keep their locks in `Lock`, so that ThreadSanitizer sees them.)
    @Test func synchronizationComesAlong() {
        let scheduler = TestScheduler()
        let fired = Atomic<Int>(0)
        scheduler.schedule { fired.add(1, ordering: .relaxed) }
        scheduler.advance(by: 1)
        #expect(fired.load(ordering: .relaxed) == 1)
    }

    /// `.zero` fits both `advance(by:)` forms (`TimeInterval`, `Duration`), and still compiles:
    /// the two mean the same, what is due now runs.
    @Test func advancingByZeroRunsWhatIsDueNow() {
        let scheduler = TestScheduler()
        let fired = Atomic<Int>(0)
        scheduler.schedule { fired.add(1, ordering: .relaxed) }
        scheduler.advance(by: .zero)
        #expect(fired.load(ordering: .relaxed) == 1)
        #expect(scheduler.now == Date(timeIntervalSinceReferenceDate: 0))
    }
}
