import Foundation
import Schedulers
import Testing
import TestSupport

/// Every programming error the contract lists ("Bad input" in API.md) stops the process with a
/// precondition failure whose message names the method and the bad value. Each case runs in a
/// child process (a Swift Testing exit test), whose standard error is checked.
@Suite(.ownThread, .timeLimit(.minutes(5))) struct PreconditionExitTests {
    static let repeatMethod = "schedule(after:repeatingEvery:withLeeway:_:)"

    /// A bad interval or leeway and how the message prints it. Exit tests hand captured values
    /// to the child process as JSON, which has no NaN or infinity: the doubles travel as bits.
    struct BadRepeat: Codable, Sendable, CustomTestStringConvertible {
        private var intervalBits: UInt64
        private var leewayBits: UInt64
        var printed: String

        init(interval: Double, leeway: Double, printed: String) {
            intervalBits = interval.bitPattern
            leewayBits = leeway.bitPattern
            self.printed = printed
        }

        var interval: Double { Double(bitPattern: intervalBits) }
        var leeway: Double { Double(bitPattern: leewayBits) }

        var testDescription: String { "interval \(interval), leeway \(leeway)" }
    }

    static let badRepeats: [BadRepeat] = [
        BadRepeat(interval: 0, leeway: 0, printed: "0.0"),
        BadRepeat(interval: -1, leeway: 0, printed: "-1.0"),
        BadRepeat(interval: -.infinity, leeway: 0, printed: "-inf"),
        BadRepeat(interval: .nan, leeway: 0, printed: "nan"),
        BadRepeat(interval: .infinity, leeway: 0, printed: "inf"),
        BadRepeat(interval: 1, leeway: -0.5, printed: "-0.5"),
        BadRepeat(interval: 1, leeway: .nan, printed: "nan"),
    ]

    /// The schedulers the bad input is tried on, made inside the child process.
    enum Kind: String, Codable, Sendable, CaseIterable {
        case queue, targetQueue, test, subscription

        func make() -> Scheduler {
            switch self {
            case .queue: QueueScheduler(name: "bad.queue", queue: DispatchQueue(label: "bad.queue"))
            case .targetQueue: TargetQueueScheduler(name: "bad.target", targetQueue: .global())
            case .test: TestScheduler()
            // Called with no current scheduler (a Swift Testing body is not on the main thread),
            // so it forwards to its background TargetQueueScheduler.
            case .subscription: Scheduler.subscription
            }
        }
    }

    @Test(arguments: Kind.allCases, badRepeats)
    func badRepeatStops(kind: Kind, bad: BadRepeat) async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) { [kind, bad] in
            _ = kind.make().schedule(after: Date(), repeatingEvery: bad.interval, withLeeway: bad.leeway) {}
        }
        expectMessage(result, names: [Self.repeatMethod, bad.printed])
    }

    /// The Date-free overload goes through the same check.
    @Test(arguments: Kind.allCases)
    func badRepeatThroughTheDefaultLeewayStops(kind: Kind) async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) { [kind] in
            _ = kind.make().schedule(after: Date(), repeatingEvery: -2) {}
        }
        expectMessage(result, names: [Self.repeatMethod, "-2.0"])
    }

    @Test func repeatingOnTheImmediateSchedulerStops() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = Scheduler.immediate.schedule(after: Date(), repeatingEvery: 1) {}
        }
        expectMessage(result, names: ["ImmediateScheduler", Self.repeatMethod, "1.0"])
    }

    @Test func negativeTicksStop() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            TestScheduler().step(-3)
        }
        expectMessage(result, names: ["step(_:)", "-3"])
    }

    // Non-finite virtual times. A NaN start date broke ordering (actions ran 2, 0, 1).
    @Test func nanStartDateStops() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = TestScheduler(startDate: Date(timeIntervalSinceReferenceDate: .nan))
        }
        expectMessage(result, names: ["TestScheduler.init(startDate:)", "nan"])
    }

    @Test func infiniteStartDateStops() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = TestScheduler(startDate: Date(timeIntervalSinceReferenceDate: .infinity))
        }
        expectMessage(result, names: ["TestScheduler.init(startDate:)", "inf"])
    }

    @Test func negativeInfiniteStartDateStops() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = TestScheduler(startDate: Date(timeIntervalSinceReferenceDate: -.infinity))
        }
        expectMessage(result, names: ["TestScheduler.init(startDate:)", "-inf"])
    }

    @Test func advancingByNaNStops() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            TestScheduler().advance(by: .nan)
        }
        expectMessage(result, names: ["TestScheduler.advance(by:)", "nan"])
    }

    @Test func advancingToANaNDateStops() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            TestScheduler().advance(to: Date(timeIntervalSinceReferenceDate: .nan))
        }
        expectMessage(result, names: ["TestScheduler.advance(to:)", "nan"])
    }

    /// A subclass that overrides nothing: each required method stops, naming the class and the
    /// method it should have overridden.
    @Test func subclassWithoutOverridesStopsOnSchedule() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = BareScheduler().schedule {}
        }
        expectMessage(result, names: ["BareScheduler", "schedule(_:)"])
    }

    @Test func subclassWithoutOverridesStopsOnScheduleAfter() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = BareScheduler().schedule(afterDelay: 1) {}
        }
        expectMessage(result, names: ["BareScheduler", "schedule(after:_:)"])
    }

    @Test func subclassWithoutOverridesStopsOnRepeating() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = BareScheduler().schedule(after: Date(), repeatingEvery: 1) {}
        }
        expectMessage(result, names: ["BareScheduler", Self.repeatMethod])
    }

    @Test func subclassWithoutOverridesStopsOnRecursive() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = BareScheduler().scheduleRecursive { _ in }
        }
        expectMessage(result, names: ["BareScheduler", "schedule(_:)"])
    }

    /// Valid input right next to the bad values does not stop (in-process, so a trap fails the run).
    @Test func boundaryValuesAreAccepted() {
        let scheduler = TestScheduler()
        let tiny = scheduler.schedule(after: scheduler.now, repeatingEvery: .leastNonzeroMagnitude, withLeeway: 0) {}
        let huge = scheduler.schedule(after: scheduler.now, repeatingEvery: .greatestFiniteMagnitude, withLeeway: .greatestFiniteMagnitude) {}
        scheduler.step(3)
        tiny?.dispose()
        huge?.dispose()
        scheduler.step(0)
        #expect(scheduler.pendingCount == 0)
    }
}

/// A scheduler subclass that forgot to override the required methods.
final class BareScheduler: Scheduler, @unchecked Sendable {}

/// Checks that the child's standard error contains every one of `names`.
func expectMessage(_ result: ExitTest.Result?, names: [String], sourceLocation: SourceLocation = #_sourceLocation) {
    guard let result else { return }  // the exit expectation itself already failed
    let stderr = String(decoding: result.standardErrorContent, as: UTF8.self)
    for name in names {
        #expect(stderr.contains(name), "standard error does not name \(name): \(stderr)", sourceLocation: sourceLocation)
    }
}
