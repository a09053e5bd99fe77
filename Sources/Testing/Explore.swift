/// The first seed under which ``PromiseTestRuntime/explore(seeds:autoAdvance:_:)`` saw its body
/// fail: what it threw, and the order that seed chose.
public struct ExploredFailure: Error, CustomStringConvertible {
    /// The seed: `PromiseTestRuntime(seed: seed)` replays the same order.
    public let seed: UInt64
    /// What the body threw.
    public let error: any Error
    /// The contexts whose jobs ran, in the order they ran (``PromiseTestRuntime/order``).
    public let order: [String]

    /// The seed, how to replay it, the error, and the order of the jobs.
    public var description: String {
        "failed with seed \(seed) (replay with PromiseTestRuntime(seed: \(seed))): \(error)\norder: "
            + order.joined(separator: " → ")
    }
}

extension PromiseTestRuntime {
    /// Runs `body` once per seed, each time with a fresh runtime made with that seed, and returns
    /// the first run that failed — or `nil` if none did.
    ///
    /// A run fails when `body` throws (use `try #require(…)` for the checks that should stop an
    /// order). Each seed chooses a different order among the jobs that could run next, keeping
    /// every context's own rules; the same seed always makes the same choices.
    ///
    /// ```swift
    /// let failure = PromiseTestRuntime.explore(seeds: 1...500) { runtime in
    ///     let total = try runtime.run { try cache.refreshAll().wait() }
    ///     try #require(total == 3)
    /// }
    /// #expect(failure == nil, "\(failure!)")
    /// ```
    ///
    /// - Parameters:
    ///   - seeds: The seeds to try, in order.
    ///   - autoAdvance: Whether each runtime's clock jumps to the next deadline when idle.
    ///   - body: One run of the scenario, given its runtime.
    /// - Returns: The first failure, with its seed and order.
    public static func explore(
        seeds: some Sequence<UInt64>, autoAdvance: Bool = false, _ body: (PromiseTestRuntime) throws -> Void
    ) -> ExploredFailure? {
        for seed in seeds {
            let runtime = PromiseTestRuntime(seed: seed, autoAdvance: autoAdvance)
            do {
                try body(runtime)
            } catch {
                return ExploredFailure(seed: seed, error: error, order: runtime.order)
            }
        }
        return nil
    }
}
