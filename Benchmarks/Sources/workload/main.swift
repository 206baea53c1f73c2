import BenchmarkWorkloads
import Foundation

// Runs one workload once, for profilers: `workload NAME COUNT` prints the wall time per
// operation. Scripts/callgrind.sh runs it under `valgrind --tool=callgrind` at two counts and
// takes the difference, so start-up and the build of the process cancel out.
//
//   swift build --package-path Benchmarks -c release --product workload

let workloads: [String: (Int) -> Void] = [
    "serial-ours": { SerialQueueWorkload.ours(actions: $0, producers: 1) },
    "serial-raw": { SerialQueueWorkload.rawGCD(actions: $0, producers: 1) },
    "serial-raw-context": { SerialQueueWorkload.rawGCDWithContext(actions: $0, producers: 1) },
    "serial2-raw-context": { SerialQueueWorkload.rawGCDWithContext(actions: $0, producers: 2) },
    "serial-opencombine": { SerialQueueWorkload.openCombine(actions: $0, producers: 1) },
    "serial-nio": { SerialQueueWorkload.nio(actions: $0, producers: 1) },
    "serial2-ours": { SerialQueueWorkload.ours(actions: $0, producers: 2) },
    "serial2-raw": { SerialQueueWorkload.rawGCD(actions: $0, producers: 2) },
    "serial2-opencombine": { SerialQueueWorkload.openCombine(actions: $0, producers: 2) },
    "serial2-nio": { SerialQueueWorkload.nio(actions: $0, producers: 2) },
    "recursion-ours": { RecursionWorkload.oursQueue(iterations: $0) },
    "recursion-raw": { RecursionWorkload.rawQueue(iterations: $0) },
    "recursion-nio": { RecursionWorkload.nio(iterations: $0) },
    "recursion-immediate-ours": { RecursionWorkload.oursImmediate(iterations: $0) },
    "recursion-immediate-loop": { RecursionWorkload.plainLoop(iterations: $0) },
    "debounce-ours": { for _ in 0..<$0 { precondition(AsyncDebounceWorkload.ours()) } },
    "viewmodel-sync": { count in
        MainActor.assumeIsolated { for _ in 0..<count { precondition(ViewModelDebounceWorkload.oursSynchronous()) } }
    },
    "viewmodel-async": { count in
        AsyncDebounceWorkload.runOnMainActor {
            for _ in 0..<count {
                let exact = await ViewModelDebounceWorkload.oursAsynchronous()
                precondition(exact)
            }
        }
    },
    "viewmodel-testclock": { count in
        AsyncDebounceWorkload.runOnMainActor { for _ in 0..<count { _ = await ViewModelDebounceWorkload.testClock() } }
    },
    "virtual-ours": { VirtualTimeWorkload.ours(times: VirtualTimeWorkload.times(count: $0)) },
    "virtual-heap": { VirtualTimeWorkload.bareHeap(times: VirtualTimeWorkload.times(count: $0)) },
]

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count == 2, let run = workloads[arguments[0]], let count = Int(arguments[1]), count > 0 else {
    FileHandle.standardError.write(Data("usage: workload {\(workloads.keys.sorted().joined(separator: "|"))} COUNT\n".utf8))
    exit(2)
}
let start = DispatchTime.now().uptimeNanoseconds
run(count)
let elapsed = DispatchTime.now().uptimeNanoseconds - start
print(String(format: "%@ %d: %.1f ns/op", arguments[0], count, Double(elapsed) / Double(count)))
