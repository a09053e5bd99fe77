#if canImport(Testing)
import Testing
#endif
import ActorPromise
import ActorPromiseExecutors

/// The first seed under which ``PromiseTestRuntime/explore(seeds:autoAdvance:_:)`` saw its body
/// fail: why, and the order that seed chose.
public struct ExploredFailure: Error, CustomStringConvertible {
    /// The seed: `PromiseTestRuntime(seed: seed)` replays the same order.
    public let seed: UInt64
    /// What the body threw, or ``RecordedIssues`` when it recorded failed expectations
    /// (`#expect`, `#require`) without throwing anything else.
    public let error: any Error
    /// The body's own failure messages: each failed expectation as Swift Testing words it
    /// ("Expectation failed: (total → 2) == 3"), or what it threw.
    public let messages: [String]
    /// The jobs that ran, in the order they ran, each with its context and what it was
    /// (``PromiseTestRuntime/order``).
    public let order: [String]

    /// The seed, how to replay it, the failure, and the order of the jobs, one per line.
    public var description: String {
        "failed with seed \(seed) (replay with PromiseTestRuntime(seed: \(seed))):\n"
            + messages.joined(separator: "\n")
            + "\norder:\n" + order.enumerated().map { "  \($0.offset + 1). \($0.element)" }.joined(separator: "\n")
    }
}

/// The failed expectations a seed's run recorded, when it threw nothing else.
public struct RecordedIssues: Error, CustomStringConvertible {
    /// Each failed expectation, as Swift Testing words it.
    public let messages: [String]

    public var description: String { messages.joined(separator: "\n") }
}

extension PromiseTestRuntime {
    /// Runs `body` once per seed, each time with a fresh runtime made with that seed, and returns
    /// the first run that failed — or `nil` if none did.
    ///
    /// A run fails when `body` throws or, in a Swift Testing test, when an expectation in it fails
    /// (`#expect`, `#require`): those failures are taken as the seed's, not recorded as the test's,
    /// so a test can assert that a failure was found. Each seed chooses a different order among
    /// the jobs that could run next — timers due at the same instant included — keeping every
    /// context's own rules; the same seed always makes the same choices.
    ///
    /// ```swift
    /// let failure = try PromiseTestRuntime.explore(seeds: 1...500, autoAdvance: true) { runtime in
    ///     let total = try runtime.run { cache.refreshAll() }
    ///     try #require(total == 3)
    /// }
    /// #expect(failure == nil, "\(failure!)")
    /// ```
    ///
    /// - Parameters:
    ///   - seeds: The seeds to try, in order.
    ///   - autoAdvance: Whether each runtime's clock jumps to the next deadline when idle (as
    ///     ``init(seed:autoAdvance:outsideWorkTimeout:)``'s, off by default).
    ///   - body: One run of the scenario, given its runtime.
    /// - Returns: The first failure, with its seed, its messages and its order.
    /// - Throws: ``StuckRun`` when a seed's run got stuck only because timers waited and the clock
    ///   does not advance by itself (`autoAdvance` off): that is no order a program could show,
    ///   so it is not reported as a found failure.
    public static func explore(
        seeds: some Sequence<UInt64>, autoAdvance: Bool = false, _ body: (PromiseTestRuntime) throws -> Void
    ) throws -> ExploredFailure? {
        try explore(seeds: seeds, autoAdvance: autoAdvance, callbacks: .inferred, body)
    }

    /// Runs `body` once per seed, each time with a fresh runtime made with that seed and
    /// `callbacks`, and returns the first run that failed — or `nil` if none did; otherwise as
    /// ``explore(seeds:autoAdvance:_:)``.
    ///
    /// - Parameters:
    ///   - seeds: The seeds to try, in order.
    ///   - autoAdvance: Whether each runtime's clock jumps to the next deadline when idle.
    ///   - callbacks: Where the completion handlers the scenario makes are answered (see
    ///     ``Callbacks``).
    ///   - body: One run of the scenario, given its runtime.
    /// - Returns: The first failure, with its seed, its messages and its order.
    /// - Throws: ``StuckRun`` when a seed's run got stuck only because the clock does not advance
    ///   by itself.
    public static func explore(
        seeds: some Sequence<UInt64>, autoAdvance: Bool = false, callbacks: Callbacks, _ body: (PromiseTestRuntime) throws -> Void
    ) throws -> ExploredFailure? {
        for seed in seeds {
            let runtime = PromiseTestRuntime(seed: seed, autoAdvance: autoAdvance, callbacks: callbacks)
            let (thrown, issues) = runCapturingIssues { try body(runtime) }
            guard thrown != nil || !issues.isEmpty else { continue }
            if runtime.isStuckOnTheClock, let thrown, thrown is StuckRun || (thrown as? PromiseError)?.code == .wouldDeadlock {
                throw runtime.stuckRun(idleFor: nil)
            }
            let messages = issues.isEmpty ? [thrown.map { "\($0)" } ?? ""] : issues
            return ExploredFailure(
                seed: seed, error: thrown.map { issues.isEmpty ? $0 : RecordedIssues(messages: issues) } ?? RecordedIssues(messages: issues),
                messages: messages, order: runtime.order)
        }
        return nil
    }

    /// Runs `body`, returning what it threw and, inside a Swift Testing test, the descriptions of
    /// the issues it recorded — which are taken as known, so the test does not fail for them.
    private static func runCapturingIssues(_ body: () throws -> Void) -> (thrown: (any Error)?, issues: [String]) {
        var thrown: (any Error)?
        #if canImport(Testing)
        if Test.current != nil {
            let issues = LockedState<[String]>([])
            withKnownIssue(isIntermittent: true) {
                do { try body() } catch { thrown = error }
            } matching: { issue in
                issues.withLock { $0.append(issue.description) }
                return true
            }
            return (thrown, issues.withLock { $0 })
        }
        #endif
        do { try body() } catch { thrown = error }
        return (thrown, [])
    }
}
