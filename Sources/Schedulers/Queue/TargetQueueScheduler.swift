import Foundation

/// A ``QueueScheduler`` on a serial queue of its own that targets another queue
/// (RACTargetQueueScheduler, `dispatch_set_target_queue`).
///
/// Its actions run one at a time in FIFO order even when the target is concurrent, and with the
/// target's priority: ``Scheduler/main`` is one of these, targeting the main queue. The queue is
/// labelled with the scheduler's name, so debuggers and crash logs show which scheduler ran.
public final class TargetQueueScheduler: QueueScheduler, @unchecked Sendable {
    /// A scheduler whose new serial queue, labelled `name`, targets `targetQueue`.
    ///
    /// - Parameters:
    ///   - name: the scheduler's name and its queue's label; nil gives one that says the class.
    ///   - targetQueue: the queue the new serial queue targets.
    public init(name: String? = nil, targetQueue: DispatchQueue) {
        let name = name ?? Scheduler.anonymousName(for: TargetQueueScheduler.self)
        // Created with its target: setting a target on an active queue crashes (Platform notes, item 5).
        super.init(name: name, queue: DispatchQueue(label: name, target: targetQueue))
    }

    /// A scheduler targeting the global queue of `priority` (RAC's `+schedulerWithPriority:name:`,
    /// `+schedulerWithPriority:` and `+scheduler`).
    ///
    /// - Parameters:
    ///   - priority: the quality of service of the global queue to target.
    ///   - name: the scheduler's name and its queue's label; nil gives one that says the class.
    public convenience init(priority: Scheduler.Priority = .default, name: String? = nil) {
        self.init(name: name, targetQueue: .global(qos: priority.qualityOfService))
    }
}

extension Scheduler.Priority {
    /// The GCD quality of service of each priority.
    var qualityOfService: DispatchQoS.QoSClass {
        switch self {
        case .high: .userInitiated
        case .default: .default
        case .low: .utility
        case .background: .background
        }
    }
}
