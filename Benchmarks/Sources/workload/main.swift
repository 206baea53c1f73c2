import BenchmarkWorkloads
import Foundation
import Schedulers

// Runs one workload once, for profilers: `workload NAME COUNT` prepares its input (the virtual
// times, say), runs it once inside `measuredRound` and prints the wall time per operation.
// Scripts/callgrind.sh runs it under `valgrind --tool=callgrind`: at two counts, taking the
// difference so start-up cancels out, or counting inside `measuredRound` alone.
//
//   swift build --package-path Benchmarks -c release --product workload

let probed = TargetQueueScheduler(name: "bench.current")
let workloads: [String: (Int) -> () -> Void] = [
    "serial-ours": { n in { SerialQueueWorkload.ours(actions: n, producers: 1) } },
    "serial-raw": { n in { SerialQueueWorkload.rawGCD(actions: n, producers: 1) } },
    "serial-raw-context": { n in { SerialQueueWorkload.rawGCDWithContext(actions: n, producers: 1) } },
    "serial2-raw-context": { n in { SerialQueueWorkload.rawGCDWithContext(actions: n, producers: 2) } },
    "serial-opencombine": { n in { SerialQueueWorkload.openCombine(actions: n, producers: 1) } },
    "serial-nio": { n in { SerialQueueWorkload.nio(actions: n, producers: 1) } },
    "serial2-ours": { n in { SerialQueueWorkload.ours(actions: n, producers: 2) } },
    "serial2-raw": { n in { SerialQueueWorkload.rawGCD(actions: n, producers: 2) } },
    "serial2-opencombine": { n in { SerialQueueWorkload.openCombine(actions: n, producers: 2) } },
    "serial2-nio": { n in { SerialQueueWorkload.nio(actions: n, producers: 2) } },
    "recursion-ours": { n in { RecursionWorkload.oursQueue(iterations: n) } },
    "recursion-raw": { n in { RecursionWorkload.rawQueue(iterations: n) } },
    "recursion-nio": { n in { RecursionWorkload.nio(iterations: n) } },
    "recursion-immediate-ours": { n in { RecursionWorkload.oursImmediate(iterations: n) } },
    "recursion-immediate-loop": { n in { RecursionWorkload.plainLoop(iterations: n) } },
    "debounce-ours": { n in { for _ in 0..<n { precondition(AsyncDebounceWorkload.ours()) } } },
    "immediate-schedule": { n in { ImmediateWorkload.oursSchedule(operations: n) } },
    "direct-call": { n in { ImmediateWorkload.directCall(operations: n) } },
    "current-read": { n in { ImmediateWorkload.probedCurrentRead(operations: n, on: Scheduler.immediate) } },
    "thread-dictionary": { n in { ImmediateWorkload.threadDictionary(operations: n) } },
    "current-identity-action": { n in { ImmediateWorkload.probedCurrentIdentity(operations: n, of: probed, inAction: true) } },
    "current-identity-main": { n in { ImmediateWorkload.probedCurrentIdentity(operations: n, of: Scheduler.main, inAction: false) } },
    "is-current-action": { n in { ImmediateWorkload.probedIsCurrent(operations: n, of: probed, inAction: true) } },
    "is-current-main": { n in { ImmediateWorkload.probedIsCurrent(operations: n, of: Scheduler.main, inAction: false) } },
    "current-pthread-getspecific": { n in { ImmediateWorkload.probedPthreadGetspecific(operations: n) } },
    "virtual-ours": { n in let times = VirtualTimeWorkload.times(count: n); return { VirtualTimeWorkload.ours(times: times) } },
    "virtual-heap": { n in let times = VirtualTimeWorkload.times(count: n); return { VirtualTimeWorkload.bareHeap(times: times) } },
    "virtual-collections-heap": { n in
        let times = VirtualTimeWorkload.times(count: n)
        return { VirtualTimeWorkload.collectionsHeap(times: times) }
    },
    // The same, with every action at one virtual time (a burst of `schedule {}`): only the
    // sequence numbers order them.
    "virtual-equal-ours": { n in let times = [Double](repeating: 0, count: n); return { VirtualTimeWorkload.ours(times: times) } },
    "virtual-equal-heap": { n in let times = [Double](repeating: 0, count: n); return { VirtualTimeWorkload.bareHeap(times: times) } },
    "virtual-equal-collections-heap": { n in
        let times = [Double](repeating: 0, count: n)
        return { VirtualTimeWorkload.collectionsHeap(times: times) }
    },
    // Workload 6: add n, remove n/2 in seeded random order, dispose (the input made beforehand).
    "compound-ours": { n in let input = CompoundWorkload.makeInput(count: n); return { CompoundWorkload.ours(input) } },
    "compound-dict": { n in let input = CompoundWorkload.makeInput(count: n); return { CompoundWorkload.lockedDictionary(input) } },
    // Workload 10: n tasks, each sleeping 1 ms on the clock, driven by `clock.run()`.
    "captured-task": { n in { CapturedTaskWorkload.captured(tasks: n) } },
    "preferring-task": { n in { CapturedTaskWorkload.preferring(tasks: n) } },
    "plain-task": { n in { CapturedTaskWorkload.plain(tasks: n) } },
    // Workload 11: n captures of each shape, a scheduler each (for memcheck and LeakSanitizer).
    "capture-sync": { n in { CaptureMemoryWorkload.run(.synchronousMainActor, n) } },
    "capture-async": { n in { CaptureMemoryWorkload.run(.asynchronousMainActor, n) } },
    "capture-nonisolated": { n in { CaptureMemoryWorkload.run(.nonisolated, n) } },
    "viewmodel-sync": { n in
        { MainActor.assumeIsolated { for _ in 0..<n { precondition(ViewModelDebounceWorkload.oursSynchronous()) } } }
    },
    "viewmodel-async": { n in
        {
            AsyncDebounceWorkload.runOnMainActor {
                for _ in 0..<n {
                    let exact = await ViewModelDebounceWorkload.oursAsynchronous()
                    precondition(exact)
                }
            }
        }
    },
    "viewmodel-testclock": { n in
        { AsyncDebounceWorkload.runOnMainActor { for _ in 0..<n { _ = await ViewModelDebounceWorkload.testClock() } } }
    },
]

let arguments = Array(CommandLine.arguments.dropFirst())
// `workload memory SHAPE COUNT` prints resident memory's growth per capture over COUNT captures
// of that shape (synchronousMainActor, asynchronousMainActor, nonisolated) that follow 2 × COUNT
// others, then the bytes those grew by beyond that, once (`residentGrowth`), in this
// process alone: inside a process whose heap already holds freed memory, the growth would
// vanish into it.
// The ratio table runs it (workload 11).
if arguments.count == 3, arguments[0] == "memory", let count = Int(arguments[2]),
    let shape = CaptureMemoryWorkload.Shape.allCases.first(where: { "\($0)" == arguments[1] })
{
    let growth = CaptureMemoryWorkload.residentGrowth(shape, captures: count)
    print(growth.perCapture, growth.once)
    exit(0)
}
guard arguments.count == 2, let run = workloads[arguments[0]], let count = Int(arguments[1]), count > 0 else {
    FileHandle.standardError.write(Data("usage: workload {\(workloads.keys.sorted().joined(separator: "|"))} COUNT\n".utf8))
    exit(2)
}
/// The measured part, by a name of its own: `callgrind.sh` counts only inside it for the
/// `NAME@COUNT` rows (`--toggle-collect`), so the input's preparation is left out.
@inline(never)
func measuredRound(_ body: () -> Void) {
    body()
}

let body = run(count)
let start = DispatchTime.now().uptimeNanoseconds
measuredRound(body)
let elapsed = DispatchTime.now().uptimeNanoseconds - start
print(String(format: "%@ %d: %.1f ns/op", arguments[0], count, Double(elapsed) / Double(count)))
