import Testing
import ActorPromiseTesting
import Foundation
import ActorPromise

/// The model check of ``ModelCheckTests``, with the order of every handler chosen by a
/// `PromiseTestRuntime` seed instead of by threads: each round builds a random graph on all seven
/// contexts and applies its steps on one thread; the runtime runs the jobs they set off in the
/// order the round's seed picks, and when it is idle every promise must match the model at once —
/// no waiting, and a failing round replays exactly (graph, steps and order).
///
/// `ACTORPROMISE_EXPLORED_ROUNDS` sets the number of rounds (default 500),
/// `ACTORPROMISE_EXPLORED_SEED` the first round's seed (default: random).
@Suite("Model check: random graphs against the rules, orders explored by the test runtime")
struct ExploredModelTests {
    static let rounds = TestSettings.rounds("ACTORPROMISE_EXPLORED_ROUNDS", quick: 200, long: 500)
    static let firstSeed = TestSettings.seed("ACTORPROMISE_EXPLORED_SEED")

    @Test("R1 R3 R4 R5 R5b R6 R7 B7 random graphs, each round's order picked by its seed")
    func exploredOrders() {
        let contexts = Contexts()
        for round in 0..<Self.rounds {
            let seed = Self.firstSeed &+ UInt64(round)
            var model = ModelRound(seed: seed, contexts: contexts)
            let runtime = PromiseTestRuntime(seed: seed)
            guard model.run(in: runtime) else {
                Issue.record("replay with ACTORPROMISE_EXPLORED_SEED=\(seed) ACTORPROMISE_EXPLORED_ROUNDS=1; order: \(runtime.order.joined(separator: " "))")
                return
            }
        }
    }
}

extension ModelRound {
    /// Builds the graph and applies the steps on this thread, in `runtime`; checks the model each
    /// time the runtime is idle. Returns whether every check passed.
    mutating func run(in runtime: PromiseTestRuntime) -> Bool {
        let size = Int.random(in: 6...30, using: &random)
        runtime.run { for _ in 0..<size { addRandomNode() } }
        guard report(after: "building the graph") else { return false }
        var unsettledRoots = resolvers.keys.sorted()
        while !unsettledRoots.isEmpty || Int.random(in: 0..<4, using: &random) == 0 {
            let step = randomStep(unsettledRoots: &unsettledRoots)
            var steps = actions(for: step)
            steps.shuffle(using: &random)
            runtime.run { for action in steps { action() } }
            guard report(after: step.description) else { return false }
        }
        runtime.run { for promise in promises { promise.catch(on: .inline) { _ in } } }
        return true
    }
}
