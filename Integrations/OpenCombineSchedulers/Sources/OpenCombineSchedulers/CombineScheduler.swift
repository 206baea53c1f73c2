import Foundation
import Schedulers

#if canImport(Combine)
import Combine
#else
import OpenCombine
#endif

/// A scheduler of this package seen as a Combine `Scheduler`, so Combine's (or OpenCombine's)
/// time operators run on it: `publisher.receive(on: Scheduler.main.combine)`.
///
/// It is one concrete type whatever the scheduler behind it, so code under test can store a
/// `CombineScheduler` and be handed `QueueScheduler(...).combine` in production and
/// `testScheduler.combine` in tests, with no generics and no type eraser.
///
/// Why a wrapper rather than a conformance on the classes themselves: ``Scheduler/main`` and the
/// other shared schedulers are typed as the base class, and ``TestScheduler`` already has a
/// `now` that is a `Date`, so a conformance could not give every scheduler the same time type.
///
/// Behaviour, scheduler by scheduler:
/// - **Time.** ``now`` is the virtual `now` of a ``TestScheduler`` and the wall clock otherwise
///   (`Date()`), matching how the schedulers read dates: a ``QueueScheduler`` fires at wall-clock
///   dates, like `RunLoop`'s Combine scheduler.
/// - **Where actions run.** Exactly where the wrapped scheduler runs them, as
///   ``Scheduler/current``: on the queue for a ``QueueScheduler``, on the thread that drives a
///   ``TestScheduler`` (when it is driven), inline for ``ImmediateScheduler``.
/// - **The immediate scheduler.** `schedule(after:)` blocks the caller until the date (RAC's
///   semantics, unlike Combine's `ImmediateScheduler`, which ignores dates). Repeating work runs
///   once, after the date, as Combine's `ImmediateScheduler` does, since a loop could never return.
/// - **Tolerance.** Used as the leeway of repeating timers; one-shot actions ignore it, like
///   `DispatchQueue`'s scheduler. A negative or NaN tolerance counts as zero.
public struct CombineScheduler: Sendable {
    /// The scheduler that runs the actions.
    public let base: Schedulers.Scheduler

    /// `base` seen as a Combine scheduler. Also spelled `base.combine`.
    public init(_ base: Schedulers.Scheduler) {
        self.base = base
    }

    /// No options: each scheduler's behaviour is fixed by the scheduler itself.
    public struct SchedulerOptions: Sendable {
        public init() {}
    }
}

#if canImport(Combine)
extension CombineScheduler: Combine.Scheduler {}
#else
extension CombineScheduler: OpenCombine.Scheduler {}
#endif

extension CombineScheduler {
    /// The virtual `now` of a ``TestScheduler``; the wall clock for every other scheduler.
    public var now: SchedulerTimeType {
        SchedulerTimeType((base as? Schedulers.TestScheduler)?.now ?? Date())
    }

    /// Zero: the schedulers fire as soon as they can after the due date.
    public var minimumTolerance: SchedulerTimeType.Stride {
        .zero
    }

    /// Runs `action` as ``Scheduler/schedule(_:)`` would: after what is already scheduled (FIFO on
    /// a serial scheduler), at `now` on a ``TestScheduler``, inline on the immediate scheduler.
    public func schedule(options: SchedulerOptions?, _ action: @escaping () -> Void) {
        let action = CombineAction(action)
        base.schedule { action.run() }
    }

    /// Runs `action` at `date` as ``Scheduler/schedule(after:_:)`` would (a past date means now).
    /// `tolerance` is ignored: one-shot actions have no leeway.
    public func schedule(
        after date: SchedulerTimeType, tolerance: SchedulerTimeType.Stride, options: SchedulerOptions?,
        _ action: @escaping () -> Void
    ) {
        let action = CombineAction(action)
        base.schedule(after: date.date) { action.run() }
    }

    /// Runs `action` at `date`, then every `interval`, with `tolerance` as the timer's leeway, as
    /// ``Scheduler/schedule(after:repeatingEvery:withLeeway:_:)`` would.
    ///
    /// Cancelling the result disposes the timer: no run starts after `cancel()` returns (one in
    /// progress completes). Like `DispatchQueue`'s scheduler it is an `AnyCancellable`, so
    /// releasing it cancels too: keep it for as long as the timer should run.
    ///
    /// The schedulers reject a zero, negative or non-finite interval as a programming error, but
    /// Combine's operators pass one (`debounce(for: 0)` schedules a "repeating" action that it
    /// cancels after the first run): such an interval, and any interval on the immediate
    /// scheduler, runs `action` once, at `date`.
    public func schedule(
        after date: SchedulerTimeType, interval: SchedulerTimeType.Stride, tolerance: SchedulerTimeType.Stride,
        options: SchedulerOptions?, _ action: @escaping () -> Void
    ) -> any Cancellable {
        let action = CombineAction(action)
        let seconds = interval.timeInterval
        let disposable: (any Disposable)?
        if seconds.isFinite, seconds > 0, !(base is Schedulers.ImmediateScheduler) {
            let leeway = tolerance.timeInterval >= 0 ? tolerance.timeInterval : 0  // NaN → 0
            disposable = base.schedule(after: date.date, repeatingEvery: seconds, withLeeway: leeway) { action.run() }
        } else {
            disposable = base.schedule(after: date.date) { action.run() }
        }
        return AnyCancellable { disposable?.dispose() }
    }
}

extension Schedulers.Scheduler {
    /// This scheduler as a Combine scheduler: `publisher.receive(on: scheduler.combine)`.
    /// See ``CombineScheduler`` for what each scheduler does there.
    public var combine: CombineScheduler {
        CombineScheduler(self)
    }
}
