// swift-tools-version: 6.1
import PackageDescription

// swift-concurrency-extras' `withMainSerialExecutor` and `TestScheduler.withCapturedTasks` in one
// process: both set the runtime's `swift_task_enqueueGlobal_hook`, so each must leave it as it
// found it. A package of its own, so that the core keeps no dependencies. Tests only.
let package = Package(
    name: "ConcurrencyExtrasSchedulers",
    // The core's floor: `Mutex` and `Atomic` need these OS versions on Apple platforms.
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    dependencies: [
        .package(name: "Schedulers", path: "../.."),
        .package(url: "https://github.com/pointfreeco/swift-concurrency-extras", from: "1.4.3"),
    ],
    targets: [
        .testTarget(
            name: "ConcurrencyExtrasSchedulersTests",
            dependencies: [
                // The capture needs the test support, which lends it the runtime's hooks.
                .product(name: "SchedulersTestSupport", package: "Schedulers"),
                .product(name: "ConcurrencyExtras", package: "swift-concurrency-extras"),
            ]
        )
    ],
    swiftLanguageModes: [.v6]
)
