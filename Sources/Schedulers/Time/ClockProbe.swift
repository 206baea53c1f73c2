#if DEBUG
@_spi(SchedulersInternal) import Disposables

/// Debug builds only: records which clock the package's GCD schedulers arm each deadline on.
///
/// Whether a deadline is a `DispatchWallTime` or a `DispatchTime` cannot be seen from outside
/// Dispatch until the system clock changes, which a test cannot do. A test installs a probe for
/// the duration of a synchronous call (`ClockProbe.$current.withValue(probe) { ... }`) and reads
/// what was armed; a task-local, so tests running in parallel do not see each other's arming.
final class ClockProbe: Sendable {
    enum Clock: Sendable, Equatable {
        /// `DispatchWallTime`: the calendar clock, which follows changes to the system clock.
        case wall
        /// `DispatchTime`: the monotonic uptime clock.
        case uptime
    }

    @TaskLocal static var current: ClockProbe?

    private let armed = Lock<[Clock]>([])

    /// The clocks of the deadlines armed while this probe was installed, in order.
    var clocks: [Clock] {
        armed.withLock { $0 }
    }

    static func record(_ clock: Clock) {
        current?.armed.withLock { $0.append(clock) }
    }
}
#endif
