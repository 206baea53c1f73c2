import Foundation
import Schedulers
import Testing
import TestSupport

/// A property test of TestScheduler against a reference model: seeded random sequences of every
/// operation (schedule, schedule(after:), schedule(afterDelay:), repeating, scheduleRecursive,
/// dispose, step, step(n), advance(by:), advance(to:)), with actions that themselves dispose,
/// schedule and step. The model is a sorted array of (time, sequence) entries. After every
/// operation the exact runs (which action, at what `now`), `now` and `pendingCount` must match.
///
/// A failure names its seed; replay one with `SCHEDULERS_MODEL_SEED=<seed> swift test --filter TestSchedulerModelTests`.
@Suite(.ownThread, .timeLimit(.minutes(5))) struct TestSchedulerModelTests {
    static let sequenceCount = stressCount(10_000)
    static let chunks = 4
    static let baseSeed: UInt64 = 0x7E57_5C4E_D000_0000

    @Test(arguments: 0..<chunks)
    func matchesTheReferenceModel(chunk: Int) {
        if let text = ProcessInfo.processInfo.environment["SCHEDULERS_MODEL_SEED"], let seed = UInt64(text) {
            if chunk == 0 { _ = Self.check(seed: seed) }
            return
        }
        var failures = 0
        for index in stride(from: chunk, to: Self.sequenceCount, by: Self.chunks) {
            if !Self.check(seed: Self.baseSeed &+ UInt64(index)) {
                failures += 1
                if failures == 3 { return }  // enough to debug with; keep the report short
            }
        }
    }

    /// Runs one random sequence on a real scheduler and on the model. Records an issue naming
    /// the seed and returns false at the first difference.
    static func check(seed: UInt64) -> Bool {
        var random = SeededRandom(seed: seed)
        let scheduler = TestScheduler(startDate: Date(timeIntervalSinceReferenceDate: 0))
        let real = RealHarness(scheduler: scheduler)
        var model = Model()
        defer { real.tearDown() }
        var history: [String] = []

        let operationCount = 20 + Int(random.next() % 40)
        for index in 0..<operationCount {
            let operation = Operation.random(using: &random, model: model)
            history.append(operation.description)
            real.perform(operation, now: model.now)
            model.perform(operation)

            let actual = real.takeEvents()
            let expected = model.takeEvents()
            let problem: String? =
                if actual != expected {
                    "runs \(actual), expected \(expected)"
                } else if scheduler.now.timeIntervalSinceReferenceDate != model.now {
                    "now \(scheduler.now.timeIntervalSinceReferenceDate), expected \(model.now)"
                } else if scheduler.pendingCount != model.pendingCount {
                    "pendingCount \(scheduler.pendingCount), expected \(model.pendingCount)"
                } else {
                    nil
                }
            if let problem {
                Issue.record("""
                    TestScheduler differs from the model: seed \(seed), operation #\(index) \(operation): \(problem)
                    operations so far: \(history.joined(separator: "; "))
                    """)
                return false
            }
        }
        return true
    }
}

// MARK: Operations

/// What an action does when it runs, chosen when it is scheduled, in this order.
struct Effects: Sendable, CustomStringConvertible {
    /// Dispose this handle (possibly the action's own).
    var dispose: Int?
    /// Schedule a plain one-shot child this many seconds after `now`.
    var childDelay: Double?
    /// Call `step()` from inside the action.
    var nestedStep = false

    static let none = Effects()

    var description: String {
        var parts: [String] = []
        if let dispose { parts.append("dispose #\(dispose)") }
        if let childDelay { parts.append("child +\(childDelay)") }
        if nestedStep { parts.append("step") }
        return parts.isEmpty ? "" : " {\(parts.joined(separator: ", "))}"
    }
}

enum Operation: CustomStringConvertible {
    case schedule(Effects)
    /// `schedule(after:)` at `now + offset` (nil: `.distantPast`; infinity: `.distantFuture`).
    case scheduleAfter(offset: Double?, Effects)
    case scheduleAfterDelay(Double, Effects)
    case repeating(offset: Double, interval: Double, Effects)
    /// A `scheduleRecursive` chain that runs `runs` times, rescheduling itself from inside.
    case recursive(runs: Int)
    case dispose(handle: Int)
    case step
    case stepTicks(Int)
    case advanceBy(Double)
    /// `advance(to: now + offset)`; a negative offset is a date in the past.
    case advanceTo(offset: Double)

    var description: String {
        switch self {
        case .schedule(let effects): "schedule\(effects)"
        case .scheduleAfter(let offset, let effects): "schedule(after: now\(offset.map { $0.isInfinite ? " distantFuture" : " + \($0)" } ?? " distantPast"))\(effects)"
        case .scheduleAfterDelay(let delay, let effects): "schedule(afterDelay: \(delay))\(effects)"
        case .repeating(let offset, let interval, let effects): "repeating(after: now + \(offset), every: \(interval))\(effects)"
        case .recursive(let runs): "scheduleRecursive(\(runs) runs)"
        case .dispose(let handle): "dispose #\(handle)"
        case .step: "step()"
        case .stepTicks(let ticks): "step(\(ticks))"
        case .advanceBy(let interval): "advance(by: \(interval))"
        case .advanceTo(let offset): "advance(to: now + \(offset))"
        }
    }

    /// Half-second steps, so every sum is exact and ties are frequent.
    private static func halves(_ range: ClosedRange<Int>, _ random: inout SeededRandom) -> Double {
        Double(Int.random(in: range, using: &random)) / 2
    }

    static func random(using random: inout SeededRandom, model: Model) -> Operation {
        func effects() -> Effects {
            var effects = Effects()
            if Int.random(in: 0..<4, using: &random) == 0 {
                effects.dispose = Int.random(in: 0...model.handleCount, using: &random)  // may be its own
            }
            if Int.random(in: 0..<5, using: &random) == 0 { effects.childDelay = halves(-2...12, &random) }
            effects.nestedStep = Int.random(in: 0..<12, using: &random) == 0
            return effects
        }
        let roll = Int.random(in: 0..<100, using: &random)
        switch roll {
        case ..<10: return .schedule(effects())
        case ..<22:
            let special = Int.random(in: 0..<25, using: &random)
            let offset: Double? = special == 0 ? nil : special == 1 ? .infinity : halves(-6...30, &random)
            return .scheduleAfter(offset: offset, effects())
        case ..<34: return .scheduleAfterDelay(halves(-4...30, &random), effects())
        case ..<40:
            let interval = [0.5, 1, 1.5, 2, 3, 5][Int.random(in: 0..<6, using: &random)]
            return .repeating(offset: halves(-4...16, &random), interval: interval, effects())
        case ..<45: return .recursive(runs: Int.random(in: 1...4, using: &random))
        case ..<57 where model.handleCount > 0: return .dispose(handle: Int.random(in: 0..<model.handleCount, using: &random))
        case ..<67: return .step
        case ..<75: return .stepTicks(Int.random(in: 0...5, using: &random))
        case ..<90: return .advanceBy(halves(-4...24, &random))
        default: return .advanceTo(offset: halves(-10...24, &random))
        }
    }
}

/// One run of an action: its handle and the `now` it saw.
struct Event: Equatable, Sendable, CustomStringConvertible {
    var handle: Int
    var time: Double
    var description: String { "#\(handle)@\(time)" }
}

// MARK: The real scheduler

/// Performs operations on a real TestScheduler. Actions log their runs here and carry out
/// their effects through it. Handles are numbered in creation order, as in the model.
final class RealHarness: Sendable {
    private let weakScheduler: Weak<TestScheduler>
    private let events = Locked([Event]())
    private let handles = Locked([Int: any Disposable]())
    private let nextHandle = Locked(0)
    private let budgets = Locked([Int: Int]())

    init(scheduler: TestScheduler) {
        weakScheduler = Weak(scheduler)
    }

    private var scheduler: TestScheduler { weakScheduler.object! }

    func takeEvents() -> [Event] {
        events.withLock { events in
            defer { events = [] }
            return events
        }
    }

    /// Breaks the cycles between handles and the actions that refer back to this harness.
    func tearDown() {
        handles.withLock { $0 = [:] }
    }

    private func newHandle() -> Int {
        nextHandle.withLock { next in
            defer { next += 1 }
            return next
        }
    }

    private func register(_ handle: Int, _ disposable: (any Disposable)?) {
        guard let disposable else { return }
        handles.withLock { $0[handle] = disposable }
    }

    private func action(_ handle: Int, _ effects: Effects) -> @Sendable () -> Void {
        { [self] in fire(handle, effects) }
    }

    private func fire(_ handle: Int, _ effects: Effects) {
        let scheduler = self.scheduler
        events.withLock { $0.append(Event(handle: handle, time: scheduler.now.timeIntervalSinceReferenceDate)) }
        if let target = effects.dispose {
            handles.withLock { $0[target] }?.dispose()
        }
        if let delay = effects.childDelay {
            let child = newHandle()
            register(child, scheduler.schedule(afterDelay: delay, action(child, .none)))
        }
        if effects.nestedStep {
            scheduler.step()
        }
    }

    private func fireRecursive(_ handle: Int, reschedule: () -> Void) {
        events.withLock { $0.append(Event(handle: handle, time: scheduler.now.timeIntervalSinceReferenceDate)) }
        let remaining = budgets.withLock { budgets in
            budgets[handle, default: 0] -= 1
            return budgets[handle, default: 0]
        }
        if remaining > 0 { reschedule() }
    }

    /// - Parameter now: the model's `now`, to turn offsets into dates exactly as the model does.
    func perform(_ operation: Operation, now: Double) {
        switch operation {
        case .schedule(let effects):
            let handle = newHandle()
            register(handle, scheduler.schedule(action(handle, effects)))
        case .scheduleAfter(let offset, let effects):
            let handle = newHandle()
            let date =
                switch offset {
                case nil: Date.distantPast
                case let offset? where offset.isInfinite: Date.distantFuture
                case let offset?: Date(timeIntervalSinceReferenceDate: now + offset)
                }
            register(handle, scheduler.schedule(after: date, action(handle, effects)))
        case .scheduleAfterDelay(let delay, let effects):
            let handle = newHandle()
            register(handle, scheduler.schedule(afterDelay: delay, action(handle, effects)))
        case .repeating(let offset, let interval, let effects):
            let handle = newHandle()
            let date = Date(timeIntervalSinceReferenceDate: now + offset)
            register(handle, scheduler.schedule(after: date, repeatingEvery: interval, action(handle, effects)))
        case .recursive(let runs):
            let handle = newHandle()
            budgets.withLock { $0[handle] = runs }
            register(handle, scheduler.scheduleRecursive { [self] reschedule in fireRecursive(handle, reschedule: reschedule) })
        case .dispose(let handle):
            handles.withLock { $0[handle] }?.dispose()
        case .step:
            scheduler.step()
        case .stepTicks(let ticks):
            scheduler.step(ticks)
        case .advanceBy(let interval):
            scheduler.advance(by: interval)
        case .advanceTo(let offset):
            scheduler.advance(to: Date(timeIntervalSinceReferenceDate: now + offset))
        }
    }
}

// MARK: The reference model

/// The contract, written as simply as possible: a sorted array of pending (time, sequence)
/// entries, disposed ones removed at once, `now` only ever raised.
struct Model {
    enum Kind {
        case oneShot(Effects)
        case repeating(interval: Double, Effects)
        case recursive
    }

    struct Entry {
        var time: Double
        var sequence: Int
        var handle: Int
    }

    private(set) var now: Double = 0
    private var queue: [Entry] = []
    private var kinds: [Kind] = []
    private var disposed: Set<Int> = []
    private var budgets: [Int: Int] = [:]
    private var nextSequence = 0
    private var events: [Event] = []

    var handleCount: Int { kinds.count }
    var pendingCount: Int { queue.count }

    mutating func takeEvents() -> [Event] {
        defer { events = [] }
        return events
    }

    mutating func perform(_ operation: Operation) {
        switch operation {
        case .schedule(let effects):
            add(.oneShot(effects), at: now)
        case .scheduleAfter(let offset, let effects):
            let time =
                switch offset {
                case nil: Date.distantPast.timeIntervalSinceReferenceDate
                case let offset? where offset.isInfinite: Date.distantFuture.timeIntervalSinceReferenceDate
                case let offset?: now + offset
                }
            add(.oneShot(effects), at: time)
        case .scheduleAfterDelay(let delay, let effects):
            add(.oneShot(effects), at: now + delay)
        case .repeating(let offset, let interval, let effects):
            add(.repeating(interval: interval, effects), at: now + offset)
        case .recursive(let runs):
            let handle = add(.recursive, at: now)
            budgets[handle] = runs
        case .dispose(let handle):
            dispose(handle)
        case .step:
            _ = step()
        case .stepTicks(let ticks):
            for _ in 0..<ticks {
                guard step() else { break }
            }
        case .advanceBy(let interval):
            advance(to: now + interval)
        case .advanceTo(let offset):
            advance(to: now + offset)
        }
    }

    @discardableResult
    private mutating func add(_ kind: Kind, at time: Double) -> Int {
        let handle = kinds.count
        kinds.append(kind)
        push(Entry(time: time, sequence: nextSequence, handle: handle))
        nextSequence += 1
        return handle
    }

    /// A past time is due now.
    private mutating func push(_ entry: Entry) {
        var entry = entry
        entry.time = max(entry.time, now)
        let index = queue.firstIndex { ($0.time, $0.sequence) > (entry.time, entry.sequence) } ?? queue.endIndex
        queue.insert(entry, at: index)
    }

    private mutating func dispose(_ handle: Int) {
        guard disposed.insert(handle).inserted else { return }
        queue.removeAll { $0.handle == handle }
    }

    private mutating func step() -> Bool {
        guard !queue.isEmpty else { return false }
        run(queue.removeFirst())
        return true
    }

    private mutating func advance(to date: Double) {
        let target = max(date, now)
        while let first = queue.first, first.time <= target {
            run(queue.removeFirst())
        }
        // A nested step may already have gone past the target.
        now = max(now, target)
    }

    private mutating func run(_ entry: Entry) {
        now = max(now, entry.time)
        let ranAt = now
        let handle = entry.handle
        events.append(Event(handle: handle, time: now))
        switch kinds[handle] {
        case .oneShot(let effects):
            apply(effects)
        case .repeating(let interval, let effects):
            apply(effects)
            if !disposed.contains(handle) {
                push(Entry(time: ranAt + interval, sequence: entry.sequence, handle: handle))
            }
        case .recursive:
            budgets[handle, default: 0] -= 1
            if budgets[handle, default: 0] > 0 && !disposed.contains(handle) {
                push(Entry(time: now, sequence: nextSequence, handle: handle))
                nextSequence += 1
            }
        }
    }

    private mutating func apply(_ effects: Effects) {
        if let target = effects.dispose { dispose(target) }
        if let delay = effects.childDelay { add(.oneShot(.none), at: now + delay) }
        if effects.nestedStep { _ = step() }
    }
}
