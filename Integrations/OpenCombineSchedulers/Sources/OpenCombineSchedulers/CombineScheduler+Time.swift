import Foundation

#if canImport(Combine)
import Combine
#else
import OpenCombine
#endif

extension CombineScheduler {
    /// A point in a scheduler's time: a `Date`, as the schedulers use (wall clock for queue and
    /// immediate schedulers, virtual for ``TestScheduler``). Shaped like `RunLoop`'s
    /// `SchedulerTimeType`, which also wraps a `Date`.
    public struct SchedulerTimeType: Strideable, Hashable, Codable, Sendable {
        /// The date this time stands for.
        public var date: Date

        public init(_ date: Date) {
            self.date = date
        }

        /// From this time to `other`, in seconds (negative when `other` is earlier).
        public func distance(to other: SchedulerTimeType) -> Stride {
            Stride(other.date.timeIntervalSince(date))
        }

        /// This time moved by `stride` seconds.
        public func advanced(by stride: Stride) -> SchedulerTimeType {
            SchedulerTimeType(date.addingTimeInterval(stride.timeInterval))
        }

        public static func < (lhs: SchedulerTimeType, rhs: SchedulerTimeType) -> Bool {
            lhs.date < rhs.date
        }

        /// A signed number of seconds: the schedulers measure time in `TimeInterval`s. Integer and
        /// float literals are seconds (`debounce(for: 0.3, ...)`), as for `RunLoop`.
        public struct Stride: SchedulerTimeIntervalConvertible, Comparable, SignedNumeric,
            ExpressibleByFloatLiteral, Hashable, Codable, Sendable
        {
            public typealias FloatLiteralType = TimeInterval
            public typealias IntegerLiteralType = TimeInterval
            public typealias Magnitude = TimeInterval

            /// The seconds, signed.
            public var timeInterval: TimeInterval

            /// The absolute number of seconds (`Numeric`'s meaning of magnitude).
            public var magnitude: TimeInterval {
                timeInterval.magnitude
            }

            public init(_ timeInterval: TimeInterval) {
                self.timeInterval = timeInterval
            }

            /// `duration` in seconds, to the attosecond's nearest `Double`.
            public init(_ duration: Duration) {
                let (seconds, attoseconds) = duration.components
                self.timeInterval = TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
            }

            public init(floatLiteral value: TimeInterval) {
                self.timeInterval = value
            }

            public init(integerLiteral value: TimeInterval) {
                self.timeInterval = value
            }

            public init?<Source: BinaryInteger>(exactly source: Source) {
                guard let value = TimeInterval(exactly: source) else { return nil }
                self.timeInterval = value
            }

            public static func < (lhs: Stride, rhs: Stride) -> Bool {
                lhs.timeInterval < rhs.timeInterval
            }

            public static func + (lhs: Stride, rhs: Stride) -> Stride {
                Stride(lhs.timeInterval + rhs.timeInterval)
            }

            public static func - (lhs: Stride, rhs: Stride) -> Stride {
                Stride(lhs.timeInterval - rhs.timeInterval)
            }

            public static func * (lhs: Stride, rhs: Stride) -> Stride {
                Stride(lhs.timeInterval * rhs.timeInterval)
            }

            public static func += (lhs: inout Stride, rhs: Stride) {
                lhs.timeInterval += rhs.timeInterval
            }

            public static func -= (lhs: inout Stride, rhs: Stride) {
                lhs.timeInterval -= rhs.timeInterval
            }

            public static func *= (lhs: inout Stride, rhs: Stride) {
                lhs.timeInterval *= rhs.timeInterval
            }

            public static func seconds(_ s: Int) -> Stride {
                Stride(TimeInterval(s))
            }

            public static func seconds(_ s: Double) -> Stride {
                Stride(s)
            }

            public static func milliseconds(_ ms: Int) -> Stride {
                Stride(TimeInterval(ms) / 1e3)
            }

            public static func microseconds(_ us: Int) -> Stride {
                Stride(TimeInterval(us) / 1e6)
            }

            public static func nanoseconds(_ ns: Int) -> Stride {
                Stride(TimeInterval(ns) / 1e9)
            }
        }
    }
}
