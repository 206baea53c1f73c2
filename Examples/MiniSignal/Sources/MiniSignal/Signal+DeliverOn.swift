import Schedulers

extension Signal {
    /// Sends every event on `scheduler` (RAC's `-deliverOn:`): this decides where values
    /// *arrive*, not where the signal's work runs (see ``subscribe(on:)``).
    ///
    /// Each event is one `schedule(_:)`, so events keep their order on a serial scheduler. The
    /// scheduled sends are not tracked: after disposal they still run, and the observer drops
    /// them (see ``Observer``). That keeps this operator allocation-free beyond the schedule.
    public func deliver(on scheduler: Scheduler) -> Signal {
        Signal { observer in
            observe { event in
                scheduler.schedule { observer.send(event) }
            }
        }
    }
}
