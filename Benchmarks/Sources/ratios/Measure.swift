import Dispatch

/// One system in a comparison: a name and a run that returns nanoseconds per operation.
struct System {
    let name: String
    let run: () -> Double

    /// A system whose run does `operations` operations: timed with the monotonic clock.
    init(_ name: String, operations: Int, prepare: @escaping () -> Any = { () }, _ body: @escaping (Any) -> Void) {
        self.name = name
        run = {
            let input = prepare()
            let start = DispatchTime.now().uptimeNanoseconds
            body(input)
            let end = DispatchTime.now().uptimeNanoseconds
            return Double(end - start) / Double(operations)
        }
    }

    /// A system whose run reports its own figure (timer lateness).
    init(_ name: String, figure: @escaping () -> Double) {
        self.name = name
        run = figure
    }
}

/// The figures of one system over all rounds.
struct Samples {
    var values: [Double] = []
    var median: Double {
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
    var min: Double { values.min() ?? .nan }
}

/// Runs `systems` interleaved, A B C A B C ..., `rounds` times after one warm-up round, and
/// returns each one's samples, in the order given.
func interleave(_ systems: [System], rounds: Int) -> [Samples] {
    for system in systems { _ = system.run() }  // warm-up: caches, thread pool, lazy globals
    var samples = Array(repeating: Samples(), count: systems.count)
    for _ in 0..<rounds {
        for (index, system) in systems.enumerated() {
            samples[index].values.append(system.run())
        }
    }
    return samples
}
