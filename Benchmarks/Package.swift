// swift-tools-version: 6.0
// The benchmark suite: its own package, so that the library itself depends on nothing. It calls
// ActorPromise from a separate module, exactly as users do, and SwiftNIO side by side.
import PackageDescription

let package = Package(
    name: "ActorPromiseBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "ActorPromise", path: ".."),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
    ],
    targets: [
        .executableTarget(
            name: "Measure",
            dependencies: [
                .product(name: "ActorPromise", package: "ActorPromise"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
    ]
)
