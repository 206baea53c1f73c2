import Foundation
import Schedulers
import Testing
import TestSupport

/// A scheduler of a user's own that overrides only the RAC-compatible `withLeeway:` method
/// (the one subclasses override) and records each call before handing it to a TestScheduler.
private final class LeewayRecordingScheduler: Scheduler, @unchecked Sendable {
    let base = TestScheduler()
    let calls = Locked<[(date: Date, interval: TimeInterval, leeway: TimeInterval)]>([])

    init() { super.init(name: "leeway recorder") }

    override var now: Date { base.now }

    override func schedule(_ action: @escaping @Sendable () -> Void) -> (any Disposable)? {
        base.schedule(action)
    }

    override func schedule(after date: Date, _ action: @escaping @Sendable () -> Void) -> (any Disposable)? {
        base.schedule(after: date, action)
    }

    override func schedule(
        after date: Date, repeatingEvery interval: TimeInterval, withLeeway leeway: TimeInterval = 0,
        _ action: @escaping @Sendable () -> Void
    ) -> (any Disposable)? {
        calls.withLock { $0.append((date, interval, leeway)) }
        return base.schedule(after: date, repeatingEvery: interval, withLeeway: leeway, action)
    }
}

/// `leeway:` is one label for both repeating forms: seconds with a `Date`, a `Duration` with a
/// `Duration`. The RAC spelling `withLeeway:` keeps working, and stays the method to override.
@Suite(.ownThread, .timeLimit(.minutes(5))) struct LeewaySpellingTests {
    /// The `leeway:` spelling reaches a subclass's override of the `withLeeway:` method, with
    /// the same arguments, also when the call is made through the base class type.
    @Test func theNewSpellingReachesAnOverrideOfTheRACMethod() {
        let recorder = LeewayRecordingScheduler()
        let scheduler: Scheduler = recorder
        let start = recorder.now.addingTimeInterval(1)
        let timer = scheduler.schedule(after: start, repeatingEvery: 2, leeway: 0.5) {}
        timer?.dispose()

        let calls = recorder.calls.value
        #expect(calls.count == 1)
        #expect(calls.first?.date == start)
        #expect(calls.first?.interval == 2)
        #expect(calls.first?.leeway == 0.5)
    }

    /// Both labels, and no label at all, compile and schedule the same timer; leaving the leeway
    /// out is not ambiguous and means zero.
    @Test func bothSpellingsAndNoneScheduleTheSameTimer() {
        let recorder = LeewayRecordingScheduler()
        let ticks = Locked<[String]>([])
        let start = recorder.now.addingTimeInterval(1)
        let disposables = CompoundDisposable()
        disposables.add(recorder.schedule(after: start, repeatingEvery: 1, withLeeway: 0.1) {
            ticks.withLock { $0.append("withLeeway") }
        })
        disposables.add(recorder.schedule(after: start, repeatingEvery: 1, leeway: 0.1) {
            ticks.withLock { $0.append("leeway") }
        })
        disposables.add(recorder.schedule(after: start, repeatingEvery: 1) {
            ticks.withLock { $0.append("none") }
        })

        recorder.base.advance(by: 2)
        disposables.dispose()

        #expect(ticks.value == ["withLeeway", "leeway", "none", "withLeeway", "leeway", "none"])
        #expect(recorder.calls.value.map(\.leeway) == [0.1, 0.1, 0])
    }

    /// The same label with `Duration`s: the monotonic form, with and without a leeway.
    @Test func theDurationFormUsesTheSameLabel() {
        let scheduler = TestScheduler()
        let ticks = Locked(0)
        let timers = CompoundDisposable()
        timers.add(scheduler.schedule(after: .seconds(1), repeatingEvery: .seconds(1), leeway: .milliseconds(100)) {
            ticks.withLock { $0 += 1 }
        })
        timers.add(scheduler.schedule(after: .seconds(1), repeatingEvery: .seconds(1)) {
            ticks.withLock { $0 += 1 }
        })
        scheduler.advance(by: 3)
        timers.dispose()
        #expect(ticks.value == 6)
    }
}
