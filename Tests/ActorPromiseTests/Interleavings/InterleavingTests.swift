#if ACTORPROMISE_INTERLEAVINGS
import Foundation
import Testing
import Synchronization

/// Every scenario, run once for every schedule with at most three preemptions, in the checker's
/// build (`scripts/interleavings.sh`, which shares the scenarios out between one process per core).
/// `ACTORPROMISE_INTERLEAVING_BOUND=N` asks for another bound (4 takes minutes per scenario and
/// stops the largest at `ACTORPROMISE_INTERLEAVING_LIMIT` runs, 200,000 by default);
/// `ACTORPROMISE_INTERLEAVING_FIRST_FAILURE=1` skips the scenarios after the first that fails
/// (`scripts/planted-defects.sh` sets it: it needs only the first).
@Suite("Interleavings: every schedule up to a preemption bound", .serialized)
struct InterleavingTests {
    static let scenarios = CombinatorScenarios.all + CoreScenarios.all + TimerAndAwaitScenarios.all
        + PoolScenarios.all + ContextScenarios.all + TestRuntimeScenarios.all

    @Test("each scenario under every schedule", arguments: scenarios.indices)
    func scenario(_ index: Int) {
        let scenario = Self.scenarios[index]
        // `ACTORPROMISE_INTERLEAVING_SCENARIO=text` runs only the scenarios whose name holds it.
        if let only = TestSettings.string("ACTORPROMISE_INTERLEAVING_SCENARIO"), !scenario.name.contains(only) { return }
        // `ACTORPROMISE_INTERLEAVING_CLAIMS=dir`: processes sharing `dir` each run the scenarios
        // they claim first (the script runs one per core).
        if let claims = TestSettings.string("ACTORPROMISE_INTERLEAVING_CLAIMS"), !Self.claim(index, in: claims) { return }
        let bound = TestSettings.integer("ACTORPROMISE_INTERLEAVING_BOUND", default: scenario.bound)
        let limit = TestSettings.integer("ACTORPROMISE_INTERLEAVING_LIMIT", default: 200_000)
        if TestSettings.string("ACTORPROMISE_INTERLEAVING_FIRST_FAILURE") == "1", Self.failed.load(ordering: .relaxed) { return }
        let report = InterleavingChecker.shared.explore(scenario, bound: bound, limit: limit)
        if report.failure != nil { Self.failed.store(true, ordering: .relaxed) }
        print("interleavings: \(report)")
        #expect(report.failure == nil, "\(report)")
        #expect(report.complete || bound > scenario.bound, "\(report)")
    }

    /// Claims scenario `index` for this process: `false` if another process sharing `directory`
    /// did first (making a directory succeeds once).
    static func claim(_ index: Int, in directory: String) -> Bool {
        (try? FileManager.default.createDirectory(atPath: "\(directory)/\(index)", withIntermediateDirectories: false)) != nil
    }

    /// Whether a scenario has failed in this run.
    static let failed = Atomic<Bool>(false)

    @Test("the scenarios are at least twenty, each named once")
    func scenarioCount() {
        #expect(Self.scenarios.count >= 20)
        #expect(Set(Self.scenarios.map(\.name)).count == Self.scenarios.count)
    }
}
#endif
