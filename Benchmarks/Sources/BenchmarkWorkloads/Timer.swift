import Dispatch
import Foundation
import Schedulers
import Synchronization

/// Workload 7: a repeating timer, `interval` apart, `ticks` ticks, leeway 0. Ours is
/// `schedule(after:repeatingEvery:withLeeway:)` on a ``TargetQueueScheduler``; raw GCD is a
/// `DispatchSourceTimer` on a serial queue. Both run at the same time, so they share the
/// machine's noise. Lateness of tick k = when it ran − (start + k × interval), by the wall clock.
public enum TimerWorkload {
    public struct Lateness: Sendable {
        /// Nanoseconds, one per tick, sorted.
        public let sorted: [Int]
        public func percentile(_ p: Double) -> Int {
            sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)]
        }
        public var p50: Int { percentile(0.50) }
        public var p99: Int { percentile(0.99) }
        public var max: Int { sorted.last ?? 0 }
    }

    /// Runs ours and raw GCD side by side; returns (ours, raw).
    public static func run(ticks: Int = 200, intervalMilliseconds: Int = 10) -> (ours: Lateness, raw: Lateness) {
        let interval = UInt64(intervalMilliseconds) * 1_000_000
        let start = wallClockNanoseconds() + 20_000_000
        let startWall = DispatchWallTime(
            timespec: timespec(tv_sec: Int(start / 1_000_000_000), tv_nsec: Int(start % 1_000_000_000)))

        let ours = Recorder(ticks: ticks, start: start, interval: interval)
        let scheduler = TargetQueueScheduler(name: "bench.timer.ours", targetQueue: .global())
        let startDate = Date(timeIntervalSince1970: Double(start) / 1e9)
        let timer = scheduler.schedule(
            after: startDate, repeatingEvery: Double(intervalMilliseconds) / 1000, withLeeway: 0
        ) { ours.tick() }

        let raw = Recorder(ticks: ticks, start: start, interval: interval)
        let source = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "bench.timer.raw", target: .global()))
            as! DispatchSource & DispatchSourceTimer
        source.schedule(wallDeadline: startWall, repeating: .milliseconds(intervalMilliseconds), leeway: .nanoseconds(0))
        source.setEventHandler { raw.tick() }
        source.resume()

        ours.wait()
        raw.wait()
        timer?.dispose()
        source.cancel()
        return (ours.lateness(), raw.lateness())
    }
}

/// Records when each tick ran; signals after the last.
private final class Recorder: @unchecked Sendable {
    // `@unchecked`: `times` is written by the timer's serial queue only, read after `wait()`.
    private var times: [UInt64] = []
    private let ticks: Int
    private let start: UInt64
    private let interval: UInt64
    private let done = DispatchSemaphore(value: 0)

    init(ticks: Int, start: UInt64, interval: UInt64) {
        self.ticks = ticks
        self.start = start
        self.interval = interval
        times.reserveCapacity(ticks)
    }

    func tick() {
        guard times.count < ticks else { return }
        times.append(wallClockNanoseconds())
        if times.count == ticks { done.signal() }
    }

    func wait() {
        done.wait()
    }

    func lateness() -> TimerWorkload.Lateness {
        let late = times.enumerated().map { index, time in
            Int(Int64(bitPattern: time &- (start + UInt64(index) * interval)))
        }
        return .init(sorted: late.sorted())
    }
}

/// Nanoseconds since 1970 by the wall clock (what `DispatchWallTime` counts in).
private func wallClockNanoseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
}
