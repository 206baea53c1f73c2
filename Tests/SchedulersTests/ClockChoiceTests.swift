import Foundation
@testable import Schedulers
import Testing
import TestSupport

/// Which clock each of the package's GCD schedulers arms its deadlines on (the table in
/// `Scheduler.now`'s documentation). A wall-clock deadline and a monotonic one fire at the same
/// moment unless the system clock changes, which a test cannot do, so these read what was armed
/// through the debug-only `ClockProbe`.
@Suite(.ownThread, .timeLimit(.minutes(5))) struct ClockChoiceTests {
    /// The clocks armed by `body`, which must arm synchronously.
    private func armed(_ body: () -> Void) -> [ClockProbe.Clock] {
        let probe = ClockProbe()
        ClockProbe.$current.withValue(probe, operation: body)
        return probe.clocks
    }

    private static let far = Date(timeIntervalSinceNow: 3600)

    @Test func queueSchedulersUseTheWallClockForDatesAndTheMonotonicOneForDurations() {
        for scheduler in [TargetQueueScheduler(name: "clock"), QueueScheduler(queue: DispatchQueue(label: "clock"))] {
            #expect(armed { scheduler.schedule(after: Self.far) {}?.dispose() } == [.wall])
            #expect(armed { scheduler.schedule(afterDelay: 3600) {}?.dispose() } == [.wall])
            #expect(armed { scheduler.schedule(after: Self.far, repeatingEvery: 1) {}?.dispose() } == [.wall])
            #expect(armed { scheduler.schedule(after: .seconds(3600)) {}?.dispose() } == [.uptime])
            #expect(armed { scheduler.schedule(after: .seconds(3600), repeatingEvery: .seconds(1)) {}?.dispose() } == [.uptime])
        }
    }

    @Test func mainUsesTheMonotonicClockForDurations() {
        #expect(armed { Scheduler.main.schedule(after: .seconds(3600)) {}?.dispose() } == [.uptime])
        #expect(armed { Scheduler.main.schedule(after: .seconds(3600), repeatingEvery: .seconds(1)) {}?.dispose() } == [.uptime])
    }

    // Defect 1: mainInline's Duration forms fell into the base class's wall-clock defaults, so
    // setting the system clock back delayed only mainInline's work.
    @Test func mainInlineUsesTheMonotonicClockForDurationsLikeMain() {
        #expect(armed { Scheduler.mainInline.schedule(after: .seconds(3600)) {}?.dispose() } == [.uptime])
        #expect(armed { Scheduler.mainInline.schedule(after: .seconds(3600), repeatingEvery: .seconds(1)) {}?.dispose() } == [.uptime])
        #expect(armed { Scheduler.mainInline.schedule(after: Self.far) {}?.dispose() } == [.wall])
    }

    @Test func subscriptionUsesItsBackgroundSchedulersClocksOffAnyScheduler() {
        #expect(armed { Scheduler.subscription.schedule(after: .seconds(3600)) {}?.dispose() } == [.uptime])
        #expect(armed { Scheduler.subscription.schedule(after: Self.far) {}?.dispose() } == [.wall])
    }

    /// RACQueueScheduler+Subclass: a subclass overriding the Date-based methods sees the
    /// `Duration` forms too, so they count on its clock (the wall clock, here).
    @Test func aQueueSchedulerSubclassGetsTheDurationFormsThroughItsDateBasedMethods() {
        let scheduler = RecordingQueueScheduler()
        #expect(armed { scheduler.schedule(after: .seconds(3600)) {}?.dispose() } == [.wall])
        #expect(scheduler.oneShots.value.count == 1)
        #expect(armed { scheduler.schedule(after: .seconds(3600), repeatingEvery: .seconds(1)) {}?.dispose() } == [.wall])
        #expect(scheduler.repeating.value.count == 1)
    }

    @Test func theTestSchedulerArmsNoRealClock() {
        let scheduler = TestScheduler()
        #expect(armed {
            scheduler.schedule(after: .seconds(5)) {}
            scheduler.schedule(after: Self.far) {}
            scheduler.schedule(after: .seconds(1), repeatingEvery: .seconds(1)) {}?.dispose()
        } == [])
    }
}
