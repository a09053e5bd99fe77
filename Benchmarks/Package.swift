// swift-tools-version: 6.1
// The benchmark suite: its own package, so that the library itself depends on nothing. It calls
// ActorPromise from a separate module, exactly as users do, with SwiftNIO and the platform's
// primitives side by side.
//
// - `Measure`: one workload per run, for instruction and allocation counts under callgrind
//   (`compare.sh`) — stable on a shared machine.
// - `MeasureConcurrency`: the same for the rows against plain Swift concurrency, in a binary of
//   its own so that they do not move the other rows' code.
// - `ActorPromiseBenchmarks`: the same workloads under ordo-one/benchmark, for wall-clock
//   medians and malloc counts (`swift package benchmark`).
import PackageDescription

let package = Package(
    name: "ActorPromiseBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "ActorPromise", path: ".."),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "Measure",
            dependencies: [
                .product(name: "ActorPromise", package: "ActorPromise"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .executableTarget(
            name: "MeasureConcurrency",
            dependencies: [.product(name: "ActorPromise", package: "ActorPromise")],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .executableTarget(
            name: "MeasurePending",
            dependencies: [.product(name: "ActorPromise", package: "ActorPromise")],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .executableTarget(
            name: "ActorPromiseBenchmarks",
            dependencies: [
                .product(name: "ActorPromise", package: "ActorPromise"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/ActorPromiseBenchmarks",
            swiftSettings: [.swiftLanguageMode(.v6)],
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ]
)
