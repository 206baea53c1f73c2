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
        // No release is tagged yet. Depend on a clone next to this package,
        // or on the main branch:
        //   .package(url: "<its git URL>", branch: "main"),
        // or on one commit:
        //   .package(url: "<its git URL>", revision: "<commit hash>"),
        .package(path: "../Schedulers"),
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
