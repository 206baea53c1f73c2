// swift-tools-version: 6.1
import PackageDescription

// swift-async-algorithms' time-based operators on a TestScheduler's clock, inside
// `TestScheduler.withCapturedTasks`: a package of its own, so that the core keeps no dependencies.
// It holds tests only: the operators need no adapter, just the scheduler's `clock`.
let package = Package(
    name: "AsyncAlgorithmsSchedulers",
    // The core's floor: `Mutex` and `Atomic` need these OS versions on Apple platforms.
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    dependencies: [
        .package(name: "Schedulers", path: "../.."),
        .package(url: "https://github.com/apple/swift-async-algorithms", from: "1.1.4"),
    ],
    targets: [
        .testTarget(
            name: "AsyncAlgorithmsSchedulersTests",
            dependencies: [
                // The capture needs the test support, which lends it the runtime's hooks.
                .product(name: "SchedulersTestSupport", package: "Schedulers"),
                .product(name: "AsyncAlgorithms", package: "swift-async-algorithms"),
            ]
        )
    ],
    swiftLanguageModes: [.v6]
)
