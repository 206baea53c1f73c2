import Foundation

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension QueueScheduler {
    /// The wall-clock dispatch time of `date`, as `dispatch_walltime` would give it.
    ///
    /// Done naively this traps or silently never fires (<doc:PlatformNotes>, item 1), so it clamps:
    /// - NaN → now;
    /// - anything before 1970-01-01T00:00:01 (`distantPast`, the epoch, -infinity), which Dispatch
    ///   would read as "forever", → that second, i.e. long past, so it fires at once;
    /// - anything past `Int64.max` nanoseconds after the epoch (year 2262: `distantFuture`,
    ///   +infinity, 1e300 s) → `.distantFuture`;
    /// - nanoseconds kept within 0...999_999_999.
    ///
    /// It never traps, and a past date always means "now", never "never".
    ///
    /// - Parameter date: any date, NaN and infinities included.
    /// - Returns: the dispatch wall time to wait for, never `DISPATCH_TIME_FOREVER` for a past date.
    public static func wallTime(with date: Date) -> DispatchWallTime {
        let seconds = date.timeIntervalSince1970
        if seconds.isNaN { return .now() }
        if seconds >= lastRepresentableSecond { return .distantFuture }
        var time = timespec(tv_sec: 1, tv_nsec: 0)
        if seconds >= 1 {
            let whole = seconds.rounded(.down)
            time.tv_sec = .init(whole)
            time.tv_nsec = .init(min(max((seconds - whole) * 1e9, 0), 999_999_999))
        }
        return DispatchWallTime(timespec: time)
    }

    /// The last whole second whose nanoseconds (plus up to 999,999,999 more) fit in an `Int64`.
    private static var lastRepresentableSecond: Double { 9_223_372_035 }
}
