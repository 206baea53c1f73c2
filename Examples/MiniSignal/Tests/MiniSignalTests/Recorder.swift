import Foundation
import MiniSignal
import Schedulers
import Synchronization

/// Records events as short strings ("1", "completed", "failed") with where and when they came.
final class Recorder<Value: Sendable>: Sendable {
    struct Entry: Equatable {
        var event: String
        /// The label of the scheduler that was current, or "none".
        var scheduler: String
    }

    private let entries = Mutex<[Entry]>([])
    private let labels: [(label: String, scheduler: Scheduler)]

    /// `labels` names the schedulers a test cares about.
    init(_ labels: KeyValuePairs<String, Scheduler> = [:]) {
        self.labels = labels.map { ($0.key, $0.value) }
    }

    /// The handler to pass to `observe`.
    var handler: @Sendable (Event<Value>) -> Void {
        { [self] event in record(Self.describe(event)) }
    }

    /// Records `event` (e.g. a side effect) with the current scheduler's label.
    func record(_ event: String) {
        let current = Scheduler.current
        let label = labels.first { $0.scheduler === current }?.label ?? (current == nil ? "none" : "other")
        entries.withLock { $0.append(Entry(event: event, scheduler: label)) }
    }

    var events: [String] { entries.withLock { $0.map(\.event) } }
    var all: [Entry] { entries.withLock { $0 } }

    static func describe(_ event: Event<Value>) -> String {
        switch event {
        case .value(let value): "\(value)"
        case .completed: "completed"
        case .failed(let error): "failed(\(type(of: error)))"
        }
    }
}
