import BenchmarkWorkloads
import Foundation
import SchedulersTestSupport

// `workload`'s captured-task workloads in a binary that links SchedulersTestSupport, as a test
// binary does (Package.swift says why apart): `workload-in-tests NAME COUNT` runs one once and
// prints the wall time per task. Scripts/callgrind.sh counts them as "captured-task-in-tests".
//
//   swift build --package-path Benchmarks -c release --product workload-in-tests

let workloads: [String: (Int) -> Void] = [
    "captured-task": { CapturedTaskWorkload.captured(tasks: $0) },
    "preferring-task": { CapturedTaskWorkload.preferring(tasks: $0) },
]
let arguments = CommandLine.arguments
guard arguments.count == 3, let run = workloads[arguments[1]], let count = Int(arguments[2]), count > 0 else {
    print("usage: workload-in-tests {\(workloads.keys.sorted().joined(separator: "|"))} COUNT")
    exit(2)
}
let start = DispatchTime.now().uptimeNanoseconds
run(count)
let elapsed = DispatchTime.now().uptimeNanoseconds - start
print("\(arguments[1]) in a test binary: \(Double(elapsed) / Double(count)) ns per task")
