import Schedulers

extension Signal {
    /// Sends the elements of `sequence` one per scheduled action on `scheduler`, then completes
    /// (RAC's `-[RACSequence signalWithScheduler:]`).
    ///
    /// One action per element, through `scheduleRecursive`: other work on the scheduler can run
    /// between elements (a long sequence does not hog a serial queue), recursion never grows the
    /// stack, and disposing the subscription stops the chain before the next element. On a
    /// ``TestScheduler`` each `step()` sends exactly one element.
    public static func sequence<S: Sequence & Sendable>(_ sequence: S, on scheduler: Scheduler) -> Signal
    where S.Element == Value {
        Signal { observer in
            let iterator = Shared(sequence.makeIterator())
            return scheduler.scheduleRecursive { reschedule in
                guard let next = iterator.withLock({ $0.next() }) else {
                    return observer.send(.completed)
                }
                observer.send(.value(next))
                reschedule()
            }
        }
    }
}
