// swift-tools-version: 6.2
import PackageDescription

let strict: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
]

let approachableDependencies: [Target.Dependency] = ["ActorPromise", "LegacySDK", "ModernSDK"]

// One import gives the whole API: the `ActorPromise` module holds the promises
// (`Sources/ActorPromise`) and the async/await and callback bridge (`Sources/Bridge`), and
// re-exports the execution contexts (`Sources/Executors`, module `ActorPromiseExecutors`, a name
// that cannot clash with a module of the user's).
let package = Package(
    name: "ActorPromise",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11)],
    products: [
        .library(name: "ActorPromise", targets: ["ActorPromise"]),
        .library(name: "ActorPromiseTesting", targets: ["ActorPromiseTesting"]),
    ],
    targets: [
        .target(name: "ActorPromiseExecutors", path: "Sources/Executors", swiftSettings: strict),
        .target(
            name: "ActorPromise",
            dependencies: ["ActorPromiseExecutors"],
            path: "Sources",
            exclude: ["Executors", "Testing"],
            swiftSettings: strict
        ),
        // The test runtime for code that uses promises (`PromiseTestRuntime`): tests link it,
        // apps do not ship it.
        .target(
            name: "ActorPromiseTesting",
            dependencies: ["ActorPromise", "ActorPromiseExecutors"],
            path: "Sources/Testing",
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
        // A stand-in for an SDK written for Swift 6 (`Sendable`, typed-error completions).
        .target(name: "ModernSDK", path: "Tests/ModernSDK", swiftSettings: strict),
        // The approachable-concurrency examples (`Examples/Approachable`) and their scenarios
        // (`Tests/Approachable/Scenarios.swift`), linked into three targets that build them under
        // plain Swift 6, under default main-actor isolation with Swift 6.2's approachable
        // features, and with `NonisolatedNonsendingByDefault` alone.
        .testTarget(
            name: "ApproachableSwift6Tests", dependencies: approachableDependencies,
            path: "Tests/Approachable/Swift6", swiftSettings: strict
        ),
        .testTarget(
            name: "ApproachableMainActorTests", dependencies: approachableDependencies,
            path: "Tests/Approachable/DefaultMainActor",
            swiftSettings: strict + [
                .defaultIsolation(MainActor.self),
                .enableUpcomingFeature("NonisolatedNonsendingByDefault"),
                .enableUpcomingFeature("InferIsolatedConformances"),
            ]
        ),
        .testTarget(
            name: "ApproachableNonsendingTests", dependencies: approachableDependencies,
            path: "Tests/Approachable/Nonsending",
            swiftSettings: strict + [.enableUpcomingFeature("NonisolatedNonsendingByDefault")]
        ),
        .testTarget(
            name: "ActorPromiseTestingTests",
            dependencies: ["ActorPromise", "ActorPromiseTesting"],
            path: "Tests/ActorPromiseTestingTests",
            swiftSettings: strict
        ),
        .testTarget(
            name: "ActorPromiseTests",
            dependencies: ["ActorPromise", "ActorPromiseTesting", "LegacySDK"],
            path: "Tests/ActorPromiseTests",
            // Each file sees only what it imports, so `OneImportTests` proves `import ActorPromise`.
            swiftSettings: strict + [.enableUpcomingFeature("MemberImportVisibility")]
        ),
    ]
)
