import Foundation
import Schedulers

/// A virtual-time scheduler written the way a user would subclass `Scheduler` from outside the
/// module (as RAC's own test scheduler was): it keeps its own `now` and its own pending work, and
/// overrides only the three required methods plus `now` and, optionally, `storesPendingWork`.
/// The relative and `Duration` forms come from the base class's defaults, which is what the
/// tests of those defaults exercise.
final class VirtualClockScheduler: Scheduler, @unchecked Sendable {
    struct Pending: Sendable {
        var date: Date
        var interval: TimeInterval?
        var action: @Sendable () -> Void
        var disposable: ActionDisposable
    }

    private let state: Locked<(now: Date, pending: [Pending])>
    private let storesWork: Bool

    init(now: Date = Date(timeIntervalSinceReferenceDate: 1_000), storesPendingWork: Bool = true) {
        state = Locked((now, []))
        storesWork = storesPendingWork
        super.init(name: "VirtualClockScheduler")
    }

    override var now: Date { state.value.now }
    override var storesPendingWork: Bool { storesWork }

    /// The dates and intervals of everything scheduled and not disposed, in scheduling order.
    var scheduled: [(date: Date, interval: TimeInterval?)] {
        state.value.pending.filter { !$0.disposable.isDisposed }.map { ($0.date, $0.interval) }
    }

    override func schedule(_ action: @escaping @Sendable () -> Void) -> (any Disposable)? {
        schedule(after: now, action)
    }

    override func schedule(after date: Date, _ action: @escaping @Sendable () -> Void) -> (any Disposable)? {
        enqueue(Pending(date: date, interval: nil, action: action, disposable: ActionDisposable()))
    }

    override func schedule(
        after date: Date, repeatingEvery interval: TimeInterval, withLeeway leeway: TimeInterval = 0,
        _ action: @escaping @Sendable () -> Void
    ) -> (any Disposable)? {
        enqueue(Pending(date: date, interval: interval, action: action, disposable: ActionDisposable()))
    }

    private func enqueue(_ pending: Pending) -> any Disposable {
        state.withLock { $0.pending.append(pending) }
        return pending.disposable
    }

    /// Runs, earliest first, every one-shot action due by `date`, then moves `now` there.
    func advance(to date: Date) {
        while true {
            let next = state.withLock { state -> Pending? in
                let due = state.pending.enumerated()
                    .filter { $0.element.date <= date && $0.element.interval == nil }
                    .min { $0.element.date < $1.element.date }
                guard let due else { return nil }
                state.pending.remove(at: due.offset)
                if due.element.date > state.now { state.now = due.element.date }
                return due.element
            }
            guard let next else { break }
            if !next.disposable.isDisposed { performAsCurrentScheduler(next.action) }
        }
        state.withLock { if date > $0.now { $0.now = date } }
    }
}
