import Schedulers

extension Signal {
    /// Subscribes to this signal on `scheduler` (RAC's `-subscribeOn:`): the signal's
    /// `didSubscribe` work — its side effects, and any events it sends synchronously — runs there.
    ///
    /// Inside the scheduled action `Scheduler.current` is `scheduler`, so the upstream
    /// subscription through ``Scheduler/subscription`` happens inline, right there.
    ///
    /// Only the first `subscribe(on:)` in a chain (the one nearest the source) matters:
    /// `s.subscribe(on: a).subscribe(on: b)` hops to `b`, then from there to `a`, and the work
    /// runs on `a`. And a hot source (``Pipe``) has no subscription work to move: its events
    /// still arrive wherever they are sent. To choose where events arrive, use ``deliver(on:)``.
    public func subscribe(on scheduler: Scheduler) -> Signal {
        Signal { observer in
            let disposables = CompoundDisposable()
            disposables.add(scheduler.schedule {
                // Added to a disposed compound, it is disposed at once: no leak, no late events.
                disposables.add(observe(observer.send))
            })
            return disposables
        }
    }
}
