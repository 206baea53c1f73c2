// swift-tools-version: 6.1
import PackageDescription

// A teaching example: a minimal reactive core whose operators use only the Schedulers API.
let package = Package(
    name: "MiniSignal",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "MiniSignal", targets: ["MiniSignal"])
    ],
    dependencies: [
        .package(name: "Schedulers", path: "../..")
    ],
    targets: [
        .target(name: "MiniSignal", dependencies: [.product(name: "Schedulers", package: "Schedulers")]),
        .testTarget(name: "MiniSignalTests", dependencies: ["MiniSignal"]),
    ],
    swiftLanguageModes: [.v6]
)
