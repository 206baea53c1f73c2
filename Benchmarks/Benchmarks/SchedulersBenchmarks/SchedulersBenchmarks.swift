import Benchmark
import BenchmarkWorkloads
import Schedulers

// The issue's seven workloads, each as "<workload> / <system>": ours, the limit (raw GCD, a
// direct call, a bare heap, a plain loop, a locked dictionary) and OpenCombine where it applies.
//
// Every benchmark that runs a batch uses a scaling factor equal to the number of operations in
// the batch, so the table shows time and allocations per operation (pass `--scale` for totals).
//
// The CI gate checks `mallocCountTotal` against a committed baseline, so each benchmark runs a
// fixed number of iterations (`maxIterations`, with a `maxDuration` that is never the limit) on
// fixed, seeded inputs.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .cpuTotal, .mallocCountTotal],
        warmupIterations: 1,
        scalingFactor: .mega,
        maxDuration: .seconds(600),
        maxIterations: 5,
        thresholds: [.mallocCountTotal: exactAllocations]
    )
    // Work that goes through GCD: libdispatch's own continuation cache allocates a little
    // differently from run to run (a few per million), so these get a small tolerance, far
    // below the +33% one more allocation per action would cost.
    let queued = Benchmark.Configuration(thresholds: [.mallocCountTotal: queuedAllocations])
    let million = 1_000_000

    // 1. Serial queue: 1M schedule + run of a no-op, waited for at the end.
    for producers in [1, 2] {
        let workload = "Serial queue 1M, \(producers) producer\(producers == 1 ? "" : "s")"
        Benchmark("\(workload) / ours", configuration: queued) { _ in
            SerialQueueWorkload.ours(actions: million, producers: producers)
        }
        Benchmark("\(workload) / raw GCD", configuration: queued) { _ in
            SerialQueueWorkload.rawGCD(actions: million, producers: producers)
        }
        Benchmark("\(workload) / OpenCombine", configuration: queued) { _ in
            SerialQueueWorkload.openCombine(actions: million, producers: producers)
        }
    }

    // 2. schedule(after:) with a 0 delay, 1k timers a batch. Timers allocate
    //    less predictably still (±7% seen), so a 10% tolerance; one more allocation per timer
    //    would be +30%.
    let delayed = Benchmark.Configuration(
        scalingFactor: .kilo, maxIterations: 5, thresholds: [.mallocCountTotal: timerAllocations])
    Benchmark("After 0 delay 1k / ours", configuration: delayed) { _ in
        DelayedWorkload.ours(actions: 1_000)
    }
    Benchmark("After 0 delay 1k / raw GCD", configuration: delayed) { _ in
        DelayedWorkload.rawGCD(actions: 1_000)
    }
    Benchmark("After 0 delay 1k / OpenCombine", configuration: delayed) { _ in
        DelayedWorkload.openCombine(actions: 1_000)
    }

    // 3. Immediate schedule and Scheduler.current, 1M a batch.
    Benchmark("Immediate schedule / ours") { _ in
        ImmediateWorkload.oursSchedule(operations: million)
    }
    Benchmark("Immediate schedule / direct call") { _ in
        ImmediateWorkload.directCall(operations: million)
    }
    Benchmark("Scheduler.current read / ours") { _ in
        ImmediateWorkload.probedCurrentRead(operations: million, on: Scheduler.immediate)
    }
    Benchmark("Scheduler.current read / threadDictionary") { _ in
        ImmediateWorkload.threadDictionary(operations: million)
    }

    // 4. TestScheduler: n actions at seeded random virtual times, scheduled then run; batches of
    //    n repeated to 1M actions an iteration.
    for count in [10_000, 100_000, 1_000_000] {
        let times = VirtualTimeWorkload.times(count: count)
        let batches = million / count
        let workload = "TestScheduler \(count == million ? "1M" : "\(count / 1_000)k")"
        Benchmark("\(workload) / ours") { _ in
            for _ in 0..<batches { VirtualTimeWorkload.ours(times: times) }
        }
        Benchmark("\(workload) / bare heap") { _ in
            for _ in 0..<batches { VirtualTimeWorkload.bareHeap(times: times) }
        }
        Benchmark("\(workload) / swift-collections Heap") { _ in
            for _ in 0..<batches { VirtualTimeWorkload.collectionsHeap(times: times) }
        }
    }

    //    The same with 10,000 actions at one virtual time (a burst of `schedule {}`): the queue's
    //    FIFO of keys due now, beside the heap.
    let burst = [Double](repeating: 0, count: 10_000)
    Benchmark("TestScheduler 10k, all at one time / ours") { _ in
        for _ in 0..<(million / burst.count) { VirtualTimeWorkload.ours(times: burst) }
    }
    Benchmark("TestScheduler 10k, all at one time / swift-collections Heap") { _ in
        for _ in 0..<(million / burst.count) { VirtualTimeWorkload.collectionsHeap(times: burst) }
    }

    // 5. scheduleRecursive, 1M iterations; resident memory at the end.
    let recursiveMetrics: [BenchmarkMetric] = [.wallClock, .cpuTotal, .mallocCountTotal, .peakMemoryResident]
    let recursive = Benchmark.Configuration(metrics: recursiveMetrics)
    let recursiveQueued = Benchmark.Configuration(metrics: recursiveMetrics, thresholds: [.mallocCountTotal: queuedAllocations])
    Benchmark("Recursive immediate 1M / ours", configuration: recursive) { _ in
        RecursionWorkload.oursImmediate(iterations: million)
    }
    Benchmark("Recursive immediate 1M / plain loop", configuration: recursive) { _ in
        RecursionWorkload.plainLoop(iterations: million)
    }
    Benchmark("Recursive serial queue 1M / ours", configuration: recursiveQueued) { _ in
        RecursionWorkload.oursQueue(iterations: million)
    }
    Benchmark("Recursive serial queue 1M / raw GCD", configuration: recursiveQueued) { _ in
        RecursionWorkload.rawQueue(iterations: million)
    }

    // 6. CompoundDisposable: add n, remove n/2 in seeded random order, dispose; batches of n
    //    repeated to 1M adds an iteration. The disposables are made outside the measurement.
    for count in [10_000, 100_000] {
        let batches = million / count
        let workload = "CompoundDisposable \(count / 1_000)k"
        Benchmark("\(workload) / ours") { benchmark in
            let inputs = (0..<batches).map { _ in CompoundWorkload.makeInput(count: count) }
            benchmark.startMeasurement()
            for input in inputs { CompoundWorkload.ours(input) }
            benchmark.stopMeasurement()
        }
        Benchmark("\(workload) / locked dictionary") { benchmark in
            let inputs = (0..<batches).map { _ in CompoundWorkload.makeInput(count: count) }
            benchmark.startMeasurement()
            for input in inputs { CompoundWorkload.lockedDictionary(input) }
            benchmark.stopMeasurement()
        }
    }

    // 7. Repeating timer, 10 ms, 200 ticks, leeway 0, ours and a raw DispatchSourceTimer side by
    //    side; lateness of every tick in microseconds (p50/p99/max columns). Not gated.
    let timer = Benchmark.Configuration(
        metrics: [.custom("lateness ours (µs)", useScalingFactor: false), .custom("lateness raw GCD (µs)", useScalingFactor: false)],
        warmupIterations: 0, scalingFactor: .one, maxIterations: 1, thresholds: [:])
    Benchmark("Timer 10 ms x200 lateness / ours and raw GCD", configuration: timer) { benchmark in
        let (ours, raw) = TimerWorkload.run()
        for nanoseconds in ours.sorted { benchmark.measurement(.custom("lateness ours (µs)", useScalingFactor: false), nanoseconds / 1_000) }
        for nanoseconds in raw.sorted { benchmark.measurement(.custom("lateness raw GCD (µs)", useScalingFactor: false), nanoseconds / 1_000) }
    }

    // 8. Async debounce: one six-value debounce scenario per iteration on our
    //    TestScheduler inside withCapturedTasks. Time only: tasks and the runtime allocate
    //    differently from run to run, so there is no allocation count to gate on. A wrong run
    //    stops the benchmark. swift-clocks' TestClock is compared in the `ratios` executable only:
    //    its pattern (withMainSerialExecutor) sends every job to the main actor, which this
    //    runner blocks while an async benchmark runs (it waits on a semaphore from the main task),
    //    so here it would never finish.
    //    1,000 runs an iteration, so the figures read as µs per run.
    let asyncDebounce = Benchmark.Configuration(metrics: [.wallClock, .cpuTotal], scalingFactor: .kilo, thresholds: [:])
    Benchmark("AsyncDebounce 6 inputs / ours", configuration: asyncDebounce) { benchmark in
        for _ in benchmark.scaledIterations {
            precondition(AsyncDebounceWorkload.ours(), "AsyncDebounce / ours: a run was not exact")
        }
    }

    // 9. What one task costs in virtual time: 20,000 tasks, each created, sleeping 1 ms on the
    //    clock and finishing, driven by `clock.run()`; captured by `withCapturedTasks`, preferring
    //    the scheduler, and a plain `Task {}` that yields once. Time only, like the row above: the
    //    runtime's task allocations are not the same from run to run.
    let tasks = Benchmark.Configuration(metrics: [.wallClock, .cpuTotal], scalingFactor: .one, thresholds: [:])
    let taskCount = 20_000
    Benchmark("Tasks 20k, sleep 1 ms on the clock / captured", configuration: tasks) { _ in
        CapturedTaskWorkload.captured(tasks: taskCount)
    }
    Benchmark("Tasks 20k, sleep 1 ms on the clock / preferring the scheduler", configuration: tasks) { _ in
        CapturedTaskWorkload.preferring(tasks: taskCount)
    }
    Benchmark("Tasks 20k, yield once / plain Task", configuration: tasks) { _ in
        CapturedTaskWorkload.plain(tasks: taskCount)
    }
}

/// Deterministic workloads (no GCD): any change in the median allocation count fails the gate.
var exactAllocations: BenchmarkThresholds { BenchmarkThresholds(relative: [.p50: 0], absolute: [:]) }
/// Through a serial queue: a 2% tolerance.
var queuedAllocations: BenchmarkThresholds { BenchmarkThresholds(relative: [.p50: 2], absolute: [:]) }
/// Through one-shot dispatch timers: a 10% tolerance.
var timerAllocations: BenchmarkThresholds { BenchmarkThresholds(relative: [.p50: 10], absolute: [:]) }
