// swift-tools-version: 6.2
// 6.2: the tests use Swift Testing's exit tests, which arrived with it (README: Requirements).
import PackageDescription

// The library ships with no package dependencies at all: benchmarks, integrations and examples
// live in packages of their own that depend on this one by path.
let package = Package(
    name: "Schedulers",
    // `Mutex` and `Atomic` (the Synchronization module) need these OS versions on Apple platforms.
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "Schedulers", targets: ["Schedulers"]),
        .library(name: "Disposables", targets: ["Disposables"]),
    ],
    targets: [
        .target(name: "Disposables"),
        // `Scheduler.current`'s thread-local slot: C, because Swift has no thread-local storage.
        .target(name: "CurrentSchedulerSlot"),
        .target(name: "Schedulers", dependencies: ["Disposables", "CurrentSchedulerSlot"]),
        // Helpers shared by both test targets (weak-reference checks, a seeded generator).
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(name: "DisposablesTests", dependencies: ["Disposables", "TestSupport"]),
        .testTarget(name: "SchedulersTests", dependencies: ["Schedulers", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
