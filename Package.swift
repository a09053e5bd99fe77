// swift-tools-version: 6.0
import PackageDescription

let strict: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
]

// One import gives the whole API: the `ActorPromise` module holds the promises
// (`Sources/ActorPromise`) and the async/await and callback bridge (`Sources/Bridge`), and
// re-exports the execution contexts (`Sources/Executors`, module `ActorPromiseExecutors`, a name
// that cannot clash with a module of the user's).
let package = Package(
    name: "ActorPromise",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11)],
    products: [
        .library(name: "ActorPromise", targets: ["ActorPromise"]),
    ],
    targets: [
        .target(name: "ActorPromiseExecutors", path: "Sources/Executors", swiftSettings: strict),
        .target(
            name: "ActorPromise",
            dependencies: ["ActorPromiseExecutors"],
            path: "Sources",
            exclude: ["Executors"],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "Demo", dependencies: ["ActorPromise"], path: "Examples/Demo",
            swiftSettings: strict + [.enableUpcomingFeature("MemberImportVisibility")]
        ),
        .executableTarget(
            name: "Fetch", dependencies: ["ActorPromise"], path: "Examples/Fetch",
            swiftSettings: strict + [.enableUpcomingFeature("MemberImportVisibility")]
        ),
        // A stand-in for an SDK built before Swift concurrency (Swift 5 mode, callbacks on
        // another thread), for the tests of the wrapping idioms (B8).
        .target(name: "LegacySDK", path: "Tests/LegacySDK", swiftSettings: [.swiftLanguageMode(.v5)]),
        .testTarget(
            name: "ActorPromiseTests",
            dependencies: ["ActorPromise", "LegacySDK"],
            path: "Tests/ActorPromiseTests",
            // Each file sees only what it imports, so `OneImportTests` proves `import ActorPromise`.
            swiftSettings: strict + [.enableUpcomingFeature("MemberImportVisibility")]
        ),
    ]
)
