import Foundation
import Schedulers

/// Something a scenario saw, and the virtual time it saw it at.
struct Event: Equatable, Sendable, CustomStringConvertible {
    let value: String
    let time: Double

    init(_ value: some CustomStringConvertible, at time: Double) {
        self.value = "\(value)"
        self.time = time
    }

    var description: String { "\(value)@\(time)" }
}

extension TestScheduler {
    /// Advances virtual time to `seconds` after the reference date.
    func run(until seconds: Double) {
        advance(to: Date(timeIntervalSinceReferenceDate: seconds))
    }

    /// Records `value` at the scheduler's virtual now.
    func record(_ value: some CustomStringConvertible, in log: Locked<[Event]>) {
        log.append(Event(value, at: seconds))
    }
}

/// nil when `log` is `expected`, else what it was.
func mismatch(_ log: Locked<[Event]>, _ expected: [Event]) -> String? {
    let events = log.value
    return events == expected ? nil : "\(events)"
}
