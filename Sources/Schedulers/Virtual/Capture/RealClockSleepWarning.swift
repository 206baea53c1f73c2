@_spi(SchedulersInternal) import Disposables
import Dispatch

/// The warning for a task in a ``TestScheduler``'s virtual time that sleeps on a real clock
/// (`Task.sleep(for:)`, `Task.sleep(nanoseconds:)`, `ContinuousClock().sleep(for:)`,
/// `SuspendingClock().sleep(for:)`), given once per scheduler.
///
/// Such a sleep cannot be made exact: its deadline is an instant on a clock the test does not
/// own, so nothing can say which virtual time it stands for. The sleep still happens, in real
/// time, and its wake-up then waits on the scheduler like any captured job: the task goes on,
/// still in virtual time, at the first drive after the sleep has ended, whenever that comes
/// (RealClockSleepInterception.swift). So what the task does next depends on real time, and the
/// scheduler names the call and the fix: pass the scheduler's clock.
enum RealClockSleepWarning {
    /// Schedulers that have warned, so each warns once. Weak, pruned as it grows: touched only
    /// when a real-clock sleep is made in virtual time, which correct tests never do.
    private static let warned = Lock([WeakTestScheduler]())

    /// Warns (once per scheduler) that a task running in `scheduler`'s virtual time slept on
    /// `clock`, a real clock.
    static func warn(_ scheduler: TestScheduler, clock: RealClock) {
        let isFirst = warned.withLock { entries -> Bool in
            entries.removeAll { $0.scheduler == nil }
            if entries.contains(where: { $0.scheduler === scheduler }) { return false }
            entries.append(WeakTestScheduler(scheduler: scheduler))
            return true
        }
        guard isFirst else { return }
        Warning.emit(message(for: scheduler, clock: clock), about: scheduler)
    }

    /// The real clocks a sleep can name. The runtime hands the sleep over as a deadline on one
    /// of them, which is all the call leaves behind: `Task.sleep(for:)` and
    /// `Task.sleep(nanoseconds:)` sleep on the continuous clock, so the message lists every
    /// spelling that reaches it.
    enum RealClock {
        case continuous
        case suspending

        var calls: String {
            switch self {
            case .continuous:
                "Task.sleep(for:), Task.sleep(nanoseconds:) or ContinuousClock().sleep(for:)"
            case .suspending:
                "SuspendingClock().sleep(for:) or Task.sleep(until:clock: .suspending)"
            }
        }

        var name: String {
            switch self {
            case .continuous: "ContinuousClock"
            case .suspending: "SuspendingClock"
            }
        }
    }

    static func message(for scheduler: TestScheduler, clock: RealClock) -> String {
        """
        a task running in the virtual time of \(scheduler) slept on a real clock, \(clock.name) \
        (\(clock.calls)); pass the scheduler's clock: `Task.sleep(for:clock: scheduler.clock)`, \
        or write the code against an injected `any Clock<Duration>` and give it `scheduler.clock`.
        That sleep cannot be exact: its deadline is an instant on a clock the test does not own, \
        so it ends in real time whatever the test advances, and the task goes on at the first \
        drive of the scheduler after that, which no virtual time can name. (Once per scheduler.)
        """
    }
}

private struct WeakTestScheduler: Sendable {
    weak var scheduler: TestScheduler?
}
