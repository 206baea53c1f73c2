// swift-tools-version: 6.2
// 6.2: the tests use Swift Testing's exit tests, which arrived with it (README: Requirements).
import PackageDescription

// The library ships with no package dependencies at all: benchmarks, integrations and examples
// live in packages of their own that depend on this one by path.

// `SCHEDULERS_PORTABLE=1 swift build` (or test) turns off every Linux-only fast path, so that
// Linux runs the portable code Apple platforms run (Platform notes, "Platform branches"). CI
// builds the whole suite, and the benchmarks' allocation baseline, both ways. An environment
// variable rather than only `-Xswiftc -DSCHEDULERS_PORTABLE`, because it also reaches this
// package when it is a dependency: the Benchmarks package and its plugin-driven builds.
let portable = !["", "0"].contains(Context.environment["SCHEDULERS_PORTABLE"] ?? "")
let portableSettings: [SwiftSetting] = portable ? [.define("SCHEDULERS_PORTABLE")] : []

let package = Package(
    name: "Schedulers",
    // `Mutex` and `Atomic` (the Synchronization module) need these OS versions on Apple platforms.
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "Schedulers", targets: ["Schedulers"]),
        .library(name: "Disposables", targets: ["Disposables"]),
        // For test targets only: the `.virtualTime` trait, `TestScheduler.capturing` and
        // XCTest's `VirtualTimeTestCase`. It imports Testing and XCTest, and links the test
        // binary's own clock and Dispatch definitions (VirtualReadings), which an app must not.
        .library(name: "SchedulersTestSupport", targets: ["SchedulersTestSupport"]),
    ],
    targets: [
        .target(name: "Disposables", swiftSettings: portableSettings),
        // `Scheduler.current`'s thread-local slot: C, because Swift has no thread-local storage.
        .target(name: "CurrentSchedulerSlot"),
        .target(name: "Schedulers", dependencies: ["Disposables", "CurrentSchedulerSlot"], swiftSettings: portableSettings),
        // The test binary's own `clock_gettime` (and Dispatch deadlines): real clocks read virtual
        // time on a thread running a world's work. C, because it defines C library functions.
        .target(name: "VirtualReadings", dependencies: ["CurrentSchedulerSlot"]),
        .target(
            name: "SchedulersTestSupport", dependencies: ["Schedulers", "VirtualReadings"],
            swiftSettings: portableSettings),
        // Helpers shared by both test targets (weak-reference checks, a seeded generator).
        .target(name: "TestSupport", path: "Tests/TestSupport", swiftSettings: portableSettings),
        .testTarget(name: "DisposablesTests", dependencies: ["Disposables", "TestSupport"], swiftSettings: portableSettings),
        .testTarget(name: "SchedulersTests", dependencies: ["Schedulers", "TestSupport"], swiftSettings: portableSettings),
        .testTarget(
            name: "SchedulersTestSupportTests", dependencies: ["SchedulersTestSupport", "TestSupport"],
            swiftSettings: portableSettings),
    ],
    swiftLanguageModes: [.v6]
)
