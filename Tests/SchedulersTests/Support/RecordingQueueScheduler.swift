import Foundation
import Schedulers

/// A `QueueScheduler` subclass from outside the module, the way RACQueueScheduler+Subclass meant:
/// it overrides the Date-based methods and records what they return, so tests can see which of
/// them the `Duration` and async API went through, and whether the result was disposed.
final class RecordingQueueScheduler: QueueScheduler, @unchecked Sendable {
    let oneShots = Locked<[any Disposable]>([])
    let repeating = Locked<[any Disposable]>([])

    init() {
        super.init(name: "RecordingQueueScheduler", queue: DispatchQueue(label: "RecordingQueueScheduler"))
    }

    override func schedule(after date: Date, _ action: @escaping @Sendable () -> Void) -> (any Disposable)? {
        let disposable = super.schedule(after: date, action)
        if let disposable { oneShots.withLock { $0.append(disposable) } }
        return disposable
    }

    override func schedule(
        after date: Date, repeatingEvery interval: TimeInterval, withLeeway leeway: TimeInterval = 0,
        _ action: @escaping @Sendable () -> Void
    ) -> (any Disposable)? {
        let disposable = super.schedule(after: date, repeatingEvery: interval, withLeeway: leeway, action)
        if let disposable { repeating.withLock { $0.append(disposable) } }
        return disposable
    }
}
