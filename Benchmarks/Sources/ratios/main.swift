import BenchmarkWorkloads
import Foundation
import Schedulers

// The ratio table: for each workload of the issue, our system, its limit and the reference
// libraries a user would pick instead (OpenCombine, SwiftNIO, swift-collections' Heap) run
// interleaved in this one process, and the table gives median and min over the rounds and the
// ratio of ours to each. Beside them, the instructions per operation that Scripts/callgrind.sh
// counted, read from `instructions.md` in the output directory (written first by
// Scripts/update-ratios.sh). Writes `ratios.md` and `ratios.svg` into the output directory.
//
//   swift run --package-path Benchmarks -c release ratios [output-directory] [--only TEXT]...
//
// The output directory defaults to Benchmarks/Results or ./Results. `--only TEXT` runs only the
// rows whose name contains TEXT (repeatable), for a quick look; the table it writes is partial.

/// The output directory and the `--only` filters, from the command line.
let (outputDirectory, only): (String, [String]) = {
    var arguments = Array(CommandLine.arguments.dropFirst())
    var only: [String] = []
    while let index = arguments.firstIndex(of: "--only"), index + 1 < arguments.count {
        only.append(arguments[index + 1])
        arguments.removeSubrange(index...(index + 1))
    }
    let directory = arguments.first ?? (FileManager.default.fileExists(atPath: "Benchmarks/Results") ? "Benchmarks/Results" : "Results")
    return (directory, only)
}()
let heavyRounds = 5
let lightRounds = 9
let million = 1_000_000

/// Whether the row named `workload` is to run.
func selected(_ workload: String) -> Bool {
    only.isEmpty || only.contains { workload.contains($0) }
}

/// Lowest instructions per operation, by `workload` executable name, from the table that
/// Scripts/callgrind.sh printed (`| name | lowest | highest |` rows).
let instructionCounts: [String: Int] = {
    guard let text = try? String(contentsOfFile: "\(outputDirectory)/instructions.md", encoding: .utf8) else { return [:] }
    var counts: [String: Int] = [:]
    for line in text.split(separator: "\n") {
        let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
        if cells.count >= 2, let count = Int(cells[1]) { counts[cells[0]] = count }
    }
    return counts
}()

/// Resident memory after the last run of each recursion system, in bytes.
final class MemoryNotes: @unchecked Sendable {
    var after: [String: Int] = [:]
}
let memory = MemoryNotes()

var rows: [Row] = []

/// Runs one row: ours, the limit and the peers interleaved. `callgrind` names the `workload`
/// executable's workload for each system ("ours", "limit" or a peer's name) whose instruction
/// count goes beside the row.
@MainActor
func compare(
    _ workload: String, unit: String = "ns/op", rounds: Int, target: Target,
    ours: System, limitName: String, limit: System, openCombine: System? = nil,
    peers: [(name: String, system: System)] = [], callgrind: [(label: String, workload: String)] = [],
    note: String = ""
) {
    guard selected(workload) else { return }
    let allPeers = (openCombine.map { [("OpenCombine", $0)] } ?? []) + peers
    let systems = [ours, limit] + allPeers.map(\.1)
    let samples = interleave(systems, rounds: rounds)
    var row = Row(workload: workload, unit: unit, ours: samples[0], limitName: limitName, limit: samples[1], target: target, note: note)
    row.peers = zip(allPeers, samples.dropFirst(2)).map { Peer(name: $0.0, samples: $1) }
    row.instructions = callgrind.map { ($0.label, instructionCounts[$0.workload]) }
    rows.append(row)
    let others = row.peers.map { String(format: ", %@ %.1f", $0.name, $0.samples.median) }.joined()
    print(String(format: "%@: ours %.1f, %@ %.1f%@ (%@); ours ÷ limit %.2f×", workload, row.ours.median, limitName,
                 row.limit.median, others, unit, row.ratioMedian))
}

// 1. Serial queue, 1M schedule + run, one then two producers.
for producers in [1, 2] {
    compare(
        "Serial queue 1M, \(producers) producer\(producers == 1 ? "" : "s")", unit: "ns/action", rounds: heavyRounds,
        target: .ratio(producers == 1 ? 1.15 : 1.1),
        ours: System("ours", operations: million) { _ in SerialQueueWorkload.ours(actions: million, producers: producers) },
        limitName: "raw GCD async",
        limit: System("raw", operations: million) { _ in SerialQueueWorkload.rawGCD(actions: million, producers: producers) },
        openCombine: System("oc", operations: million) { _ in SerialQueueWorkload.openCombine(actions: million, producers: producers) },
        peers: [("SwiftNIO", System("nio", operations: million) { _ in SerialQueueWorkload.nio(actions: million, producers: producers) })],
        callgrind: [("ours", "serial\(producers == 1 ? "" : "2")-ours"), ("limit", "serial\(producers == 1 ? "" : "2")-raw"),
                    ("SwiftNIO", "serial\(producers == 1 ? "" : "2")-nio"), ("OpenCombine", "serial\(producers == 1 ? "" : "2")-opencombine")])
}

// 2. schedule(after:) with a 0 delay.
let timers = 20_000
compare(
    "schedule(after:) 0 delay, 20k", unit: "ns/action", rounds: lightRounds, target: .none,
    ours: System("ours", operations: timers) { _ in DelayedWorkload.ours(actions: timers) },
    limitName: "raw asyncAfter(wallDeadline:)",
    limit: System("raw", operations: timers) { _ in DelayedWorkload.rawGCD(actions: timers) },
    openCombine: System("oc", operations: timers) { _ in DelayedWorkload.openCombine(actions: timers) })

// 3. Immediate schedule and Scheduler.current.
let calls = 10_000_000
compare(
    "Immediate schedule via Scheduler", rounds: lightRounds, target: .nanoseconds(15),
    ours: System("ours", operations: calls) { _ in ImmediateWorkload.oursSchedule(operations: calls) },
    limitName: "direct call",
    limit: System("direct", operations: calls) { _ in ImmediateWorkload.directCall(operations: calls) },
    callgrind: [("ours", "immediate-schedule"), ("limit", "direct-call")])
compare(
    "Scheduler.current read", rounds: lightRounds, target: .nanoseconds(5),
    ours: System("ours", operations: calls) { _ in ImmediateWorkload.probedCurrentRead(operations: calls, on: Scheduler.immediate) },
    limitName: "threadDictionary read (RAC)",
    limit: System("dict", operations: calls / 10) { _ in ImmediateWorkload.threadDictionary(operations: calls / 10) },
    callgrind: [("ours", "current-read"), ("limit", "thread-dictionary")])

// 3b. "Is this scheduler current?" against the thread-local read underneath, on the main thread
//     (`Scheduler.main`) and inside a running action of a queue scheduler. Each check is one
//     out-of-line call (ImmediateWorkload's probes say why), and so is each limit's read.
let probed = TargetQueueScheduler(name: "bench.current")
for (place, scheduler, inAction, suffix) in [("main thread", Scheduler.main, false, "main"), ("in an action", probed, true, "action")] {
    compare(
        "Scheduler.current === s, \(place)", rounds: lightRounds, target: .ratio(1.2),
        ours: System("ours", operations: calls) { _ in ImmediateWorkload.probedCurrentIdentity(operations: calls, of: scheduler, inAction: inAction) },
        limitName: "pthread_getspecific",
        limit: System("tls", operations: calls) { _ in ImmediateWorkload.probedPthreadGetspecific(operations: calls) },
        peers: [("s.isCurrent", System("isCurrent", operations: calls) { _ in ImmediateWorkload.probedIsCurrent(operations: calls, of: scheduler, inAction: inAction) })],
        callgrind: [("ours", "current-identity-\(suffix)"), ("limit", "current-pthread-getspecific"), ("s.isCurrent", "is-current-\(suffix)")])
}

// 4. TestScheduler at seeded random virtual times, given as dates (`schedule(after: Date)`),
//    against what a user would write with swift-collections' Heap (the reference, target: at or
//    below it) and a hand-written binary heap (the limit); then the same with every action at one
//    virtual time (a burst of `schedule {}`), where only the sequence numbers order the actions
//    (target: at most 1.2x the Heap).
for (count, atOneTime) in [(10_000, false), (100_000, false), (1_000_000, false), (10_000, true)] {
    let times = atOneTime ? [Double](repeating: 0, count: count) : VirtualTimeWorkload.times(count: count)
    let batches = max(1, 100_000 / count)
    let operations = count * batches
    let workload = atOneTime ? "virtual-equal" : "virtual"
    compare(
        "TestScheduler \(count == million ? "1M" : "\(count / 1000)k")\(atOneTime ? ", all at one time" : "")", unit: "ns/action",
        rounds: count == million ? heavyRounds : lightRounds,
        target: .ratioTo("swift-collections Heap", atOneTime ? 1.2 : 1.0),
        ours: System("ours", operations: operations) { _ in for _ in 0..<batches { VirtualTimeWorkload.ours(times: times) } },
        limitName: "hand-written binary heap",
        limit: System("heap", operations: operations) { _ in for _ in 0..<batches { VirtualTimeWorkload.bareHeap(times: times) } },
        peers: [("swift-collections Heap", System("collections", operations: operations) { _ in
            for _ in 0..<batches { VirtualTimeWorkload.collectionsHeap(times: times) }
        })],
        callgrind: [("ours", "\(workload)-ours@\(count)"), ("limit", "\(workload)-heap@\(count)"),
                    ("Heap", "\(workload)-collections-heap@\(count)")])
}

// 5. scheduleRecursive.
compare(
    "scheduleRecursive 1M, immediate", unit: "ns/iteration", rounds: lightRounds, target: .nanoseconds(5),
    ours: System("ours", operations: million) { _ in RecursionWorkload.oursImmediate(iterations: million) },
    limitName: "plain loop",
    limit: System("loop", operations: million) { _ in RecursionWorkload.plainLoop(iterations: million) },
    callgrind: [("ours", "recursion-immediate-ours"), ("limit", "recursion-immediate-loop")])
let rssBefore = residentMemoryBytes()
compare(
    "scheduleRecursive 1M, serial queue", unit: "ns/iteration", rounds: heavyRounds, target: .ratio(1.3),
    ours: System("ours", operations: million) { _ in
        RecursionWorkload.oursQueue(iterations: million)
        memory.after["ours"] = residentMemoryBytes()
    },
    limitName: "raw self-re-posting async",
    limit: System("raw", operations: million) { _ in
        RecursionWorkload.rawQueue(iterations: million)
        memory.after["raw"] = residentMemoryBytes()
    },
    peers: [("SwiftNIO", System("nio", operations: million) { _ in RecursionWorkload.nio(iterations: million) })],
    callgrind: [("ours", "recursion-ours"), ("limit", "recursion-raw"), ("SwiftNIO", "recursion-nio")])
if selected("scheduleRecursive 1M, serial queue") {
rows[rows.count - 1].note = String(
    format: "resident memory %.1f MB before the rounds, %.1f MB after ours' last round, %.1f MB after raw's (flat: no growth per iteration).",
    Double(rssBefore) / 1e6, Double(memory.after["ours"] ?? 0) / 1e6, Double(memory.after["raw"] ?? 0) / 1e6)
}

// 6. CompoundDisposable.
for count in [10_000, 100_000] {
    let batches = max(1, 100_000 / count)
    let operations = count * batches
    let prepare: () -> Any = { (0..<batches).map { _ in CompoundWorkload.makeInput(count: count) } }
    compare(
        "CompoundDisposable \(count / 1000)k add, \(count / 2000)k remove, dispose", unit: "ns/disposable",
        rounds: lightRounds, target: .ratio(count == 100_000 ? 1.2 : 1.5),
        ours: System("ours", operations: operations, prepare: prepare) { inputs in
            for input in inputs as! [CompoundWorkload.Input] { CompoundWorkload.ours(input) }
        },
        limitName: "dictionary under a lock",
        limit: System("dict", operations: operations, prepare: prepare) { inputs in
            for input in inputs as! [CompoundWorkload.Input] { CompoundWorkload.lockedDictionary(input) }
        },
        callgrind: [("ours", "compound-ours@\(count)"), ("limit", "compound-dict@\(count)")])
}

// 6b. What one task costs in virtual time: 20,000 tasks, each created, sleeping 1 ms on the
//     scheduler's clock and finishing, driven by `clock.run()`. Ours: plain `Task {}`s captured by
//     `withCapturedTasks` (nonisolated). The limit: the same tasks started with
//     `Task(executorPreference: scheduler)`, no capture (target: at most 1.3x). The other
//     reference: a plain `Task {}` on the cooperative pool that yields once instead of sleeping.
let taskCount = 20_000
compare(
    "Captured task 20k: create, sleep 1 ms on the clock, finish", unit: "ns/task", rounds: lightRounds, target: .ratio(1.3),
    ours: System("captured", operations: taskCount) { _ in CapturedTaskWorkload.captured(tasks: taskCount) },
    limitName: "Task(executorPreference: scheduler)",
    limit: System("preferring", operations: taskCount) { _ in CapturedTaskWorkload.preferring(tasks: taskCount) },
    peers: [("plain Task {}, yields once", System("plain", operations: taskCount) { _ in CapturedTaskWorkload.plain(tasks: taskCount) })],
    callgrind: [("ours", "captured-task/5000"), ("limit", "preferring-task/5000"), ("plain Task {}", "plain-task/5000")])

// 6b'. The same 20,000 captured tasks, shared among captures that run at once, each of its own
//      scheduler, as parallel tests run: every captured task's hop goes through process-wide
//      state (the runtime hooks, the table of captured tasks), which must not make a task dearer
//      as captures multiply. Ours: 16 captures at once; the limit: one capture of all 20,000
//      (target: flat, at most 1.3x); beside them, 4 at once.
compare(
    "Captured task 20k in 16 parallel captures", unit: "ns/task", rounds: lightRounds, target: .ratio(1.3),
    ours: System("16 captures", operations: taskCount) { _ in CapturedTaskWorkload.capturedInParallel(tasks: taskCount, captures: 16) },
    limitName: "1 capture",
    limit: System("1 capture", operations: taskCount) { _ in CapturedTaskWorkload.capturedInParallel(tasks: taskCount, captures: 1) },
    peers: [("4 captures", System("4 captures", operations: taskCount) { _ in CapturedTaskWorkload.capturedInParallel(tasks: taskCount, captures: 4) })])

// 6b''. A `.virtualTime` test's own cost: what the trait adds around a test body (a new
//       TestScheduler, an automatically advancing capture set up and torn down), measured with
//       an empty body on the main actor, 10,000 tests a round; beside it, what a swift-clocks
//       user wraps each test in instead, swift-concurrency-extras' `withMainSerialExecutor`.
let traitTests = 10_000
compare(
    "A .virtualTime test's own cost: new scheduler, automatic capture, empty body", unit: "µs/test", rounds: lightRounds,
    target: .microseconds(50),
    ours: System("trait", figure: { microsecondsPerTest { VirtualTimeScopeWorkload.withTrait(tests: traitTests) } }),
    limitName: "withMainSerialExecutor, empty body",
    limit: System("serial", figure: { microsecondsPerTest { VirtualTimeScopeWorkload.withMainSerialExecutor(tests: traitTests) } }))

/// Microseconds per test of `run`, which runs `traitTests` tests.
func microsecondsPerTest(_ run: () -> Void) -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    run()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / Double(traitTests) / 1_000
}

// 6c. Memory per test: resident memory's growth per capture over 102,400 captures of each shape,
//     a scheduler each, that follow 204,800 others (`CaptureMemoryWorkload.residentGrowth`: the
//     first runs carry what a process pays once); the limit is what the docs name per scheduler
//     (the main actor's stand-in, for the main-actor shapes; nothing otherwise). 102,400 is 800
//     pages of 32-byte stand-ins (4 KiB pages, and 200 of 16 KiB): resident memory is counted in
//     pages, and over a count of captures that fills no whole page, a 32-byte stand-in reads as a
//     page more or less at the ends (32.03 bytes at 100,000). Below a page over the run
//     (0.04 bytes a capture), the reading cannot tell growth from none: the target allows it.
//     Each round is a process of its own (`workload memory SHAPE N`): in this one, whose heap
//     holds the memory the rows above freed, the growth would vanish into it.
let captureCount = 102_400
/// Resident memory's growth per capture and once, measured by the `workload` executable beside
/// this one.
func residentGrowth(_ shape: CaptureMemoryWorkload.Shape) -> (perCapture: Double, once: Double) {
    let workload = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("workload")
    let process = Process()
    process.executableURL = workload
    process.arguments = ["memory", "\(shape)", "\(captureCount)"]
    let output = Pipe()
    process.standardOutput = output
    do { try process.run() } catch { fatalError("Resident memory per capture: cannot run \(workload.path) (build the workload product): \(error)") }
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let fields = String(decoding: data, as: UTF8.self).split(whereSeparator: \.isWhitespace).compactMap { Double($0) }
    guard process.terminationStatus == 0, fields.count == 2
    else { fatalError("Resident memory per capture: \(workload.path) memory \(shape) failed") }
    return (fields[0], fields[1])
}
for shape in CaptureMemoryWorkload.Shape.allCases where selected("Resident memory per capture, \(shape.rawValue)") {
    var growth = Samples()
    var once = Samples()
    for _ in 0..<3 {
        let round = residentGrowth(shape)
        growth.values.append(round.perCapture)
        once.values.append(round.once)
    }
    // MainActorStandIn.swift, "Lifetime": a 32-byte slot per scheduler (a nonisolated capture
    // makes no stand-in).
    let documented = shape == .nonisolated ? 0.0 : 32
    let row = Row(
        workload: "Resident memory per capture, \(shape.rawValue), 102,400 after 204,800", unit: "bytes/capture", ours: growth,
        limitName: "documented per scheduler", limit: Samples(values: [documented]),
        target: .bytes(documented, resolution: Double(sysconf(Int32(_SC_PAGESIZE))) / Double(captureCount)))
    rows.append(row)
    rows[rows.count - 1].note = String(
        format: "the first 204,800 captures of each process grew by %.0f kB more than twice the next 102,400, once (median of 3 processes).",
        once.median / 1000)
    print(String(format: "Resident memory per capture, %@: %.2f bytes (documented %.0f)", shape.rawValue, growth.median, documented))
}

// 7. Repeating timer: both run at once each round, so the rounds are not interleaved A B but
//    simultaneous; p50, p99 and max of each round's 200 ticks.
if selected("Timer") {
print("… repeating timer (\(heavyRounds) rounds of 2 s)")
var lateness: [(ours: TimerWorkload.Lateness, raw: TimerWorkload.Lateness)] = []
_ = TimerWorkload.run(ticks: 20)
for _ in 0..<heavyRounds { lateness.append(TimerWorkload.run()) }
for (name, pick, target) in [
    ("p50", { (l: TimerWorkload.Lateness) in l.p50 }, Target.none),
    ("p99", { (l: TimerWorkload.Lateness) in l.p99 }, Target.ratio(1.10)),
    ("max", { (l: TimerWorkload.Lateness) in l.max }, Target.none),
] {
    let row = Row(
        workload: "Timer 10 ms ×200, leeway 0, lateness \(name)", unit: "µs",
        ours: Samples(values: lateness.map { Double(pick($0.ours)) / 1000 }), limitName: "raw DispatchSourceTimer",
        limit: Samples(values: lateness.map { Double(pick($0.raw)) / 1000 }), target: target)
    rows.append(row)
    print(String(format: "Timer lateness %@: ours %.1f µs, raw %.1f µs; ratio %.2f×", name, row.ours.median, row.limit.median, row.ratioMedian))
}

}

// 8. Async debounce: six values through async-algorithms' debounce per run, ours
//    (TestScheduler inside withCapturedTasks) and swift-clocks' TestClock (withMainSerialExecutor);
//    5 interleaved rounds of 2,000 runs each, so the wrong-run counts are out of 10,000 (the
//    warm-up round, 200 runs, is not counted). TestClock takes milliseconds a run: ~2 minutes.
let debounceRuns = 2_000
final class WrongRuns: @unchecked Sendable {
    var ours: [Int] = []
    var testClock: [Int] = []
}
let wrongRuns = WrongRuns()
compare(
    "Async debounce (async-algorithms), 6 inputs", unit: "µs/run", rounds: 5, target: .microseconds(200),
    ours: System("ours") {
        let runs = wrongRuns.ours.isEmpty ? 200 : debounceRuns
        let start = DispatchTime.now().uptimeNanoseconds
        var wrong = 0
        for _ in 0..<runs where !AsyncDebounceWorkload.ours() { wrong += 1 }
        let elapsed = DispatchTime.now().uptimeNanoseconds - start
        wrongRuns.ours.append(wrong)
        return Double(elapsed) / Double(runs) / 1_000
    },
    limitName: "swift-clocks TestClock",
    limit: System("testclock") {
        let runs = wrongRuns.testClock.isEmpty ? 200 : debounceRuns
        let start = DispatchTime.now().uptimeNanoseconds
        // On the main actor, whose queue the main thread's run loop drains (as on Apple platforms).
        let wrong = AsyncDebounceWorkload.runOnMainActor {
            var wrong = 0
            for _ in 0..<runs where !(await AsyncDebounceWorkload.testClock()) { wrong += 1 }
            return wrong
        }
        let elapsed = DispatchTime.now().uptimeNanoseconds - start
        wrongRuns.testClock.append(wrong)
        return Double(elapsed) / Double(runs) / 1_000
    })
// The first entry of each is the warm-up round.
if selected("Async debounce") {
rows[rows.count - 1].note = "wrong runs out of 10,000: ours \(wrongRuns.ours.dropFirst().reduce(0, +)), TestClock \(wrongRuns.testClock.dropFirst().reduce(0, +)) (TestClock in its recommended pattern: withMainSerialExecutor, await clock.advance(by:))."
print(rows[rows.count - 1].note)
}

// 9. The view-model debounce test: a @MainActor model's Task {} debouncing on an
//    injected clock, per run. Ours in both shapes (synchronous on the main actor; asynchronous
//    with `await clock.advance(by:)`) beside swift-clocks' TestClock (withMainSerialExecutor);
//    5 interleaved rounds of 2,000 runs each (the warm-up round, 200 runs, is not counted).
final class ViewModelWrongRuns: @unchecked Sendable {
    var synchronous: [Int] = []
    var asynchronous: [Int] = []
    var testClock: [Int] = []
}
let viewModelWrong = ViewModelWrongRuns()
func viewModelRuns(_ counts: [Int]) -> Int { counts.isEmpty ? 200 : debounceRuns }
compare(
    "@MainActor view-model debounce, synchronous shape", unit: "µs/run", rounds: 5, target: .microseconds(200),
    ours: System("ours") {
        let runs = viewModelRuns(viewModelWrong.synchronous)
        let start = DispatchTime.now().uptimeNanoseconds
        let wrong = MainActor.assumeIsolated {
            var wrong = 0
            for _ in 0..<runs where !ViewModelDebounceWorkload.oursSynchronous() { wrong += 1 }
            return wrong
        }
        let elapsed = DispatchTime.now().uptimeNanoseconds - start
        viewModelWrong.synchronous.append(wrong)
        return Double(elapsed) / Double(runs) / 1_000
    },
    limitName: "swift-clocks TestClock",
    limit: System("testclock") {
        let runs = viewModelRuns(viewModelWrong.testClock)
        let start = DispatchTime.now().uptimeNanoseconds
        let wrong = AsyncDebounceWorkload.runOnMainActor {
            var wrong = 0
            for _ in 0..<runs where !(await ViewModelDebounceWorkload.testClock()) { wrong += 1 }
            return wrong
        }
        let elapsed = DispatchTime.now().uptimeNanoseconds - start
        viewModelWrong.testClock.append(wrong)
        return Double(elapsed) / Double(runs) / 1_000
    })
if selected("@MainActor view-model debounce, synchronous shape") {
    rows[rows.count - 1].note = "wrong runs out of 10,000: ours \(viewModelWrong.synchronous.dropFirst().reduce(0, +)), TestClock \(viewModelWrong.testClock.dropFirst().reduce(0, +))."
    print(rows[rows.count - 1].note)
}
compare(
    "@MainActor view-model debounce, asynchronous shape", unit: "µs/run", rounds: 5, target: .microseconds(200),
    ours: System("ours") {
        let runs = viewModelRuns(viewModelWrong.asynchronous)
        let start = DispatchTime.now().uptimeNanoseconds
        let wrong = AsyncDebounceWorkload.runOnMainActor {
            var wrong = 0
            for _ in 0..<runs where !(await ViewModelDebounceWorkload.oursAsynchronous()) { wrong += 1 }
            return wrong
        }
        let elapsed = DispatchTime.now().uptimeNanoseconds - start
        viewModelWrong.asynchronous.append(wrong)
        return Double(elapsed) / Double(runs) / 1_000
    },
    limitName: "swift-clocks TestClock",
    limit: System("testclock") {
        let runs = 200
        let start = DispatchTime.now().uptimeNanoseconds
        AsyncDebounceWorkload.runOnMainActor {
            for _ in 0..<runs { _ = await ViewModelDebounceWorkload.testClock() }
        }
        let elapsed = DispatchTime.now().uptimeNanoseconds - start
        return Double(elapsed) / Double(runs) / 1_000
    })
if selected("@MainActor view-model debounce, asynchronous shape") {
    rows[rows.count - 1].note = "wrong runs out of 10,000: ours \(viewModelWrong.asynchronous.dropFirst().reduce(0, +)) (TestClock's wrong runs: the row above)."
    print(rows[rows.count - 1].note)
}

// 10. A retry with backoff (4 attempts, 1 + 2 + 4 s of sleeps) tested as written: ours with
//     automatic advance, swift-clocks' TestClock driven by `await clock.run()`; per run,
//     5 interleaved rounds of 2,000 runs (the warm-up round, 200 runs, is not counted).
let retryWrong = WrongRuns()
compare(
    "Retry with backoff, automatic advance", unit: "µs/run", rounds: 5, target: .none,
    ours: System("ours") { retryRound(&retryWrong.ours, RetryBackoffWorkload.ours) },
    limitName: "swift-clocks TestClock, run()",
    limit: System("testclock") { retryRound(&retryWrong.testClock, RetryBackoffWorkload.testClock) })
if selected("Retry with backoff") {
    rows[rows.count - 1].note = "wrong runs out of 10,000: ours \(retryWrong.ours.dropFirst().reduce(0, +)), TestClock \(retryWrong.testClock.dropFirst().reduce(0, +))."
    print(rows[rows.count - 1].note)
}

let machine = "\(ProcessInfo.processInfo.operatingSystemVersionString), \(ProcessInfo.processInfo.processorCount) cores, \(ProcessInfo.processInfo.physicalMemory / 1_000_000_000) GB"
let table = markdown(
    rows, rounds: "\(lightRounds) rounds (\(heavyRounds) for the heavy workloads)", machine: machine,
    instructionsSource: instructionCounts.isEmpty
        ? "not counted (no instructions.md beside the table)"
        : "callgrind, lowest of its rounds (Scripts/callgrind.sh, in Results/instructions.md), "
            + "\"name@N\" rows counted over one round at that size, the others over 100,000 operations")
print("")
print(table)
try FileManager.default.createDirectory(atPath: outputDirectory, withIntermediateDirectories: true)
try table.write(toFile: "\(outputDirectory)/ratios.md", atomically: true, encoding: .utf8)
try svg(rows).write(toFile: "\(outputDirectory)/ratios.svg", atomically: true, encoding: .utf8)
print("Wrote \(outputDirectory)/ratios.md and \(outputDirectory)/ratios.svg")

/// One round of a retry system: 200 runs first (warm-up), then `debounceRuns`, on the main
/// actor; its wrong runs appended to `wrong`. - Returns: µs per run.
func retryRound(_ wrong: inout [Int], _ run: @escaping @MainActor () async -> Bool) -> Double {
    let runs = wrong.isEmpty ? 200 : debounceRuns
    let start = DispatchTime.now().uptimeNanoseconds
    let count = AsyncDebounceWorkload.runOnMainActor {
        var count = 0
        for _ in 0..<runs where !(await run()) { count += 1 }
        return count
    }
    wrong.append(count)
    return Double(DispatchTime.now().uptimeNanoseconds - start) / Double(runs) / 1_000
}
