import Synchronization
@_spi(SchedulersInternal) import Disposables

/// A thread-safe append-only list, to record the order in which actions ran.
final class Log<Entry: Sendable>: Sendable {
    private let entries = Lock<[Entry]>([])

    var values: [Entry] { entries.withLock { $0 } }

    func append(_ entry: Entry) {
        entries.withLock { $0.append(entry) }
    }
}
