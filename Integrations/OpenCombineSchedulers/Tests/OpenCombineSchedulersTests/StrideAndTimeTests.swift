import Foundation
import OpenCombineSchedulers
import Schedulers
import Testing

typealias Time = CombineScheduler.SchedulerTimeType
typealias Stride = CombineScheduler.SchedulerTimeType.Stride

@Suite("SchedulerTimeType and Stride")
struct StrideAndTimeTests {
    @Test func stridesAreSeconds() {
        #expect(Stride.seconds(2).timeInterval == 2)
        #expect(Stride.seconds(0.25).timeInterval == 0.25)
        #expect(Stride.milliseconds(1_500).timeInterval == 1.5)
        #expect(Stride.microseconds(250).timeInterval == 0.000_25)
        #expect(Stride.nanoseconds(5).timeInterval == 5e-9)
        #expect(Stride(.milliseconds(1_250)).timeInterval == 1.25)
        let literal: Stride = 3
        let floatLiteral: Stride = 0.5
        #expect(literal.timeInterval == 3 && floatLiteral.timeInterval == 0.5)
    }

    @Test func strideArithmetic() {
        #expect((Stride(3) - Stride(5)).timeInterval == -2)
        #expect((Stride(-2)).magnitude == 2)
        #expect(-Stride(1.5) == Stride(-1.5))
        #expect(Stride(2) * Stride(3) == Stride(6))
        #expect(Stride.zero < Stride(1e-9))
        #expect(Stride(exactly: 7) == Stride(7))
    }

    @Test func timesStrideByDates() {
        let start = Time(Date(timeIntervalSinceReferenceDate: 100))
        let later = start.advanced(by: .seconds(2.5))
        #expect(later.date == Date(timeIntervalSinceReferenceDate: 102.5))
        #expect(start.distance(to: later) == .seconds(2.5))
        #expect(later.distance(to: start) == .seconds(-2.5))
        #expect(start < later)
    }

    @Test func nowIsVirtualOnTheTestScheduler() {
        let test = TestScheduler(startDate: Date(timeIntervalSinceReferenceDate: 10))
        let scheduler = test.combine
        #expect(scheduler.now.date == Date(timeIntervalSinceReferenceDate: 10))
        test.advance(by: 5)
        #expect(scheduler.now.date == Date(timeIntervalSinceReferenceDate: 15))
        #expect(scheduler.minimumTolerance == .zero)
    }

    @Test func nowIsTheWallClockElsewhere() {
        let before = Date()
        let queueNow = TargetQueueScheduler().combine.now.date
        let immediateNow = Schedulers.Scheduler.immediate.combine.now.date
        let after = Date()
        #expect(before <= queueNow && queueNow <= after)
        #expect(before <= immediateNow && immediateNow <= after)
    }
}
