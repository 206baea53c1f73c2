// swift-tools-version: 6.1
import PackageDescription

// Lets OpenCombine (or, on Apple platforms, Combine) operators run on the Schedulers package's
// schedulers. A package of its own, so that the core keeps no dependencies.
let package = Package(
    name: "OpenCombineSchedulers",
    // The core's floor: `Mutex` and `Atomic` need these OS versions on Apple platforms.
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "OpenCombineSchedulers", targets: ["OpenCombineSchedulers"])
    ],
    dependencies: [
        .package(name: "Schedulers", path: "../.."),
        .package(url: "https://github.com/OpenCombine/OpenCombine", from: "0.14.0"),
    ],
    targets: [
        .target(
            name: "OpenCombineSchedulers",
            dependencies: [
                .product(name: "Schedulers", package: "Schedulers"),
                // Where Apple's Combine exists the sources import it instead (`#if canImport(Combine)`).
                .product(name: "OpenCombine", package: "OpenCombine", condition: .when(platforms: nonApple)),
            ]
        ),
        .testTarget(
            name: "OpenCombineSchedulersTests",
            dependencies: [
                "OpenCombineSchedulers",
                .product(name: "OpenCombine", package: "OpenCombine", condition: .when(platforms: nonApple)),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)

var nonApple: [Platform] { [.linux, .windows, .android, .wasi, .openbsd] }
