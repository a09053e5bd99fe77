import Foundation

/// Settings that let a long or replaying run of a randomized test be asked for from the command
/// line (`ACTORPROMISE_MODEL_ROUNDS=10000 swift test …`): read once, with the test's own default.
enum TestSettings {
    private static let environment = ProcessInfo.processInfo.environment

    /// The integer in environment variable `name`, or `fallback` when it is unset or not a number.
    static func integer(_ name: String, default fallback: Int) -> Int {
        environment[name].flatMap { Int($0) } ?? fallback
    }

    /// The seed in environment variable `name` (to replay a failure), or a new random one.
    static func seed(_ name: String) -> UInt64 {
        environment[name].flatMap { UInt64($0) } ?? UInt64.random(in: 1...UInt64(UInt32.max))
    }
}
