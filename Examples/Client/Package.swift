// swift-tools-version: 6.2
import PackageDescription

let package = Package(
    name: "Client",
    // Schedulers needs these on Apple platforms (for Synchronization).
    platforms: [
        .macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11),
        .visionOS(.v2),
    ],
    dependencies: [
        // Works today, in an app, a tool or a test package:
        .package(url: "<the repository's git URL>", branch: "main"),
        // Once the 0.1.0 tag is published (and in a library), instead:
        //   .package(url: "<the repository's git URL>", from: "0.1.0"),
    ],
    targets: [
        .executableTarget(
            name: "Client",
            dependencies: [
                .product(name: "Schedulers", package: "Schedulers"),
            ]
        ),
    ]
)
