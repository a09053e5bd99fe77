import Testing
import Foundation

/// Settings that let a long or replaying run of a randomized test be asked for from the command
/// line (`ACTORPROMISE_MODEL_ROUNDS=10000 swift test …`): read once, with the test's own default.
enum TestSettings {
    /// A test that runs only with the long tests (see ``long``).
    static var longTest: ConditionTrait {
        .enabled(if: long, "a long stress test: ACTORPROMISE_LONG_TESTS=1 swift test runs it")
    }

    private static let environment = ProcessInfo.processInfo.environment

    /// The integer in environment variable `name`, or `fallback` when it is unset or not a number.
    static func integer(_ name: String, default fallback: Int) -> Int {
        environment[name].flatMap { Int($0) } ?? fallback
    }

    /// The text in environment variable `name`, if set and not empty.
    static func string(_ name: String) -> String? {
        environment[name].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Whether the long stress tests run: `ACTORPROMISE_LONG_TESTS=1 swift test` (CI does, in its
    /// release step). Without it, the default run stays under a minute and randomized tests run
    /// fewer rounds.
    static let long = environment["ACTORPROMISE_LONG_TESTS"] == "1"

    /// The integer in `name`, or `quick` in the default run and `long` when the long tests run.
    static func rounds(_ name: String, quick: Int, long longRounds: Int) -> Int {
        integer(name, default: long ? longRounds : quick)
    }

    /// The seed in environment variable `name` (to replay a failure), or a new random one.
    static func seed(_ name: String) -> UInt64 {
        environment[name].flatMap { UInt64($0) } ?? UInt64.random(in: 1...UInt64(UInt32.max))
    }
}
