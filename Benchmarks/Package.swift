// swift-tools-version: 6.1
import PackageDescription

// The benchmark suite lives in a package of its own, so the library itself stays free of
// dependencies. It compares our schedulers with raw GCD (the limit) and with peers that run in
// the same process: OpenCombine's DispatchQueue scheduler and SwiftNIO's event loop.
//
//   swift package --package-path Benchmarks benchmark            # every workload, with allocations
//   swift run --package-path Benchmarks -c release ratios        # the interleaved ratio table
let package = Package(
    name: "SchedulersBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Schedulers", path: ".."),
        // The MallocInterposer trait alone: the default traits also want swift-runtime-interposer,
        // which is not needed for malloc counts (Platform notes, item 16).
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/OpenCombine/OpenCombine", from: "0.14.0"),
        // The async debounce workload: async-algorithms' operator, and swift-clocks' TestClock as the peer.
        .package(url: "https://github.com/apple/swift-async-algorithms", from: "1.1.4"),
        .package(url: "https://github.com/pointfreeco/swift-clocks", from: "1.1.1"),
        .package(url: "https://github.com/pointfreeco/swift-concurrency-extras", from: "1.4.3"),
        // SwiftNIO's MultiThreadedEventLoopGroup: the serial executor a server would use instead.
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.3"),
        // swift-collections' `Heap`: what a user would build a minimal virtual-time queue on, the
        // reference for the TestScheduler rows.
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
    ],
    targets: [
        // The workloads, shared by the benchmark target and the ratio executable so both measure
        // exactly the same code. With the test support: the captured-task workloads capture, and
        // a capture needs the runtime's hooks, which only the test support lends (an app's binary
        // names none). So every binary here links its clock and Dispatch definitions, which
        // forward every call made outside a virtual world: raw GCD and ours pay the same
        // forwarding, and neither allocates for it.
        .target(
            name: "BenchmarkWorkloads",
            dependencies: [
                .product(name: "SchedulersTestSupport", package: "Schedulers"),
                .product(name: "OpenCombine", package: "OpenCombine"),
                .product(name: "OpenCombineDispatch", package: "OpenCombine"),
                .product(name: "AsyncAlgorithms", package: "swift-async-algorithms"),
                .product(name: "Clocks", package: "swift-clocks"),
                .product(name: "ConcurrencyExtras", package: "swift-concurrency-extras"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "HeapModule", package: "swift-collections"),
            ],
            // The workloads' counters are plain class properties touched by one thread at a
            // time; without this, each access pays a dynamic exclusivity check that would
            // dominate the cheapest workloads (an immediate schedule is ~10 ns).
            swiftSettings: [.unsafeFlags(["-enforce-exclusivity=unchecked"])]
        ),
        .executableTarget(
            name: "SchedulersBenchmarks",
            dependencies: [
                "BenchmarkWorkloads",
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/SchedulersBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(name: "ratios", dependencies: ["BenchmarkWorkloads"]),
        // One workload per process, for callgrind (Scripts/callgrind.sh).
        .executableTarget(
            name: "workload",
            dependencies: ["BenchmarkWorkloads", .product(name: "Schedulers", package: "Schedulers")]),
        // The captured-task workloads again, under the names of the "-in-tests" rows
        // (Scripts/callgrind.sh). Since `workload` links the test support too (BenchmarkWorkloads
        // above), both binaries measure the same code; the committed "without the test support"
        // rows (Results/instructions.md) were measured before a capture needed it.
        .executableTarget(
            name: "workload-in-tests",
            dependencies: ["BenchmarkWorkloads", .product(name: "SchedulersTestSupport", package: "Schedulers")]),
    ],
    swiftLanguageModes: [.v6]
)
