// swift-tools-version: 6.2
import PackageDescription

// App-shaped code under test: a module whose default isolation is the main actor (as Xcode 26
// makes new app targets), view models that start `Task {}`s on it and wait on an injected clock,
// and their tests in virtual time, synchronous and asynchronous, Swift Testing and XCTest.
let package = Package(
    name: "ViewModelTesting",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    dependencies: [
        .package(name: "Schedulers", path: "../.."),
        .package(url: "https://github.com/apple/swift-async-algorithms", from: "1.1.4"),
    ],
    targets: [
        .target(
            name: "ViewModels",
            dependencies: [.product(name: "AsyncAlgorithms", package: "swift-async-algorithms")],
            swiftSettings: [.defaultIsolation(MainActor.self)]
        ),
        // snippet: readme-test-target
        // For test targets only: the app itself links just Schedulers.
        .testTarget(
            name: "ViewModelsTests",
            dependencies: [
                "ViewModels",
                .product(name: "SchedulersTestSupport", package: "Schedulers"),
            ]
        ),
        // snippet: end
    ],
    swiftLanguageModes: [.v6]
)
