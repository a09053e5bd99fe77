// swift-tools-version: 6.0
import PackageDescription

let strict: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "ActorPromise",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11)],
    products: [
        .library(name: "ActorPromise", targets: ["ActorPromise", "Executors", "Bridge"]),
    ],
    targets: [
        .target(name: "Executors", path: "Sources/Executors", swiftSettings: strict),
        .target(name: "ActorPromise", dependencies: ["Executors"], path: "Sources/ActorPromise", swiftSettings: strict),
        .target(name: "Bridge", dependencies: ["ActorPromise", "Executors"], path: "Sources/Bridge", swiftSettings: strict),
        .executableTarget(name: "Demo", dependencies: ["Bridge"], path: "Examples/Demo", swiftSettings: strict),
        .testTarget(
            name: "ActorPromiseTests",
            dependencies: ["ActorPromise", "Executors", "Bridge"],
            path: "Tests/ActorPromiseTests",
            swiftSettings: strict
        ),
    ]
)
