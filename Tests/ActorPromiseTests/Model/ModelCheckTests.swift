import Testing
import ActorPromiseTesting
import Dispatch
import Foundation
@testable import ActorPromise
import ActorPromiseExecutors

/// Randomized model-based test: seeded random promise graphs mixing every value operator, adoption
/// (`flatMap` returning other promises of the graph, `resolve(with:)`), cancellation and interest,
/// with handlers on seven contexts; settled and cancelled from several threads; after every step
/// each promise is checked against ``PromiseModel``.
///
/// Steps are applied one at a time (a batch of fulfils and rejects of distinct roots runs at once,
/// from several threads: those commute), and the graph is let run until it has done what the model
/// says the step sets off. That wait polls snapshots (`isPending`, a handler's flag, whether a
/// follower is registered with the promise it follows): observing a
/// promise with an awaiter or a handler would make the test a dependent and change the interest
/// rules it checks.
///
/// `ACTORPROMISE_MODEL_ROUNDS` sets the number of rounds (default 1,000), `ACTORPROMISE_MODEL_SEED`
/// the first round's seed (default: random); a failure prints the seed that replays it.
@Suite("Model check: random promise graphs against the documented rules")
struct ModelCheckTests {
    static let rounds = TestSettings.rounds("ACTORPROMISE_MODEL_ROUNDS", quick: 200, long: 1_000)
    static let firstSeed = TestSettings.seed("ACTORPROMISE_MODEL_SEED")

    @Test("R1 R3 R4 R5 R5b R6 R7 B7 random graphs, settled and cancelled from several threads")
    func randomGraphs() async throws {
        // It starts threads (a run-loop thread, dispatch queues): kept apart from the tests that
        // count the process's threads.
        try await AsyncMutex.memoryHeavy.withLock { () async throws in
            let contexts = Contexts()
            for round in 0..<Self.rounds {
                let seed = Self.firstSeed &+ UInt64(round)
                var round = ModelRound(seed: seed, contexts: contexts)
                let passed = try await round.run()
                if !passed { break }
            }
        }
    }
}

/// The contexts handlers run on, one of each kind.
final class Contexts: Sendable {
    let all: [any ExecutionContext]
    init() {
        all = [
            .inline, .global, SerialQueue(label: "model.serial"), ConcurrentQueue(label: "model.concurrent"),
            OperationExecutor(label: "model.operation", maxConcurrentCount: 2), RunLoopThread(name: "model.runloop"),
            DispatchQueue(label: "model.dispatch"),
        ]
    }
}

/// One round: a random graph, random steps, a check after each.
struct ModelRound {
    enum Step: CustomStringConvertible {
        case settle([(index: Int, outcome: PromiseModel.Outcome)])
        case resolve(Int, with: Int)
        case cancel(Int)

        var description: String {
            switch self {
            case .settle(let batch): "settle " + batch.map { "#\($0.index) \($0.outcome)" }.joined(separator: ", ")
            case .resolve(let index, let target): "#\(index) resolve(with: #\(target))"
            case .cancel(let index): "cancel #\(index)"
            }
        }
    }

    let seed: UInt64
    let contexts: Contexts
    var random: SplitMix64
    var model = PromiseModel()
    var promises: [Promise<Int>] = []
    var resolvers: [Int: Resolver<Int>] = [:]
    /// Per promise: whether its `flatMap` handler ran, or its `onCancel`.
    var handlerRan: [Locked<Bool>] = []
    var workStopped: [Int: Locked<Int>] = [:]
    var log: [String] = []
    static let threads = (0..<4).map { DispatchQueue(label: "model.thread\($0)") }

    init(seed: UInt64, contexts: Contexts) {
        self.seed = seed
        self.contexts = contexts
        random = SplitMix64(state: seed)
    }

    /// Builds the graph, runs the steps; returns whether every check passed.
    mutating func run() async throws -> Bool {
        let size = Int.random(in: 6...30, using: &random)
        for _ in 0..<size { addRandomNode() }
        guard try await check(after: "building the graph") else { return false }
        var unsettledRoots = resolvers.keys.sorted()
        let threadCount = Int.random(in: 2...4, using: &random)
        while !unsettledRoots.isEmpty || Int.random(in: 0..<4, using: &random) == 0 {
            let step = randomStep(unsettledRoots: &unsettledRoots)
            await perform(step, threads: threadCount)
            guard try await check(after: step.description) else { return false }
        }
        // Every check is done: the graph's rejections are handled, so that none is reported as
        // unhandled when the round's promises are freed (R14).
        for promise in promises { promise.catch(on: .inline) { _ in } }
        return true
    }

    mutating func addRandomNode() {
        let index = promises.count
        let kind: PromiseModel.Kind
        // Weighted toward adoption: a follower whose only observers follow it in turn is the shape
        // that once changed outcomes.
        let choice = index < 3 ? 0 : Int.random(in: 0..<11, using: &random)
        let anyEarlier = index > 0 ? Int.random(in: 0..<index, using: &random) : 0
        switch choice {
        case 0, 1: kind = .pending(tracksInterest: Bool.random(using: &random))
        case 2: kind = .settled(Bool.random(using: &random) ? .value(index) : .error(index))
        case 3, 4: kind = .then(parent: anyEarlier, add: 1)
        case 5: kind = .recover(parent: anyEarlier, value: 1_000 + index)
        case 6: kind = .ensure(parent: anyEarlier)
        default: kind = .flatMap(parent: anyEarlier, target: Int.random(in: 0..<index, using: &random))
        }
        let context = contexts.all[Int.random(in: 0..<contexts.all.count, using: &random)]
        let ran = Locked(false)
        handlerRan.append(ran)
        let promise: Promise<Int>
        switch kind {
        case .pending(let tracks):
            let (pending, resolver) = Promise<Int>.pending(tracksInterest: tracks)
            let stopped = Locked(0)
            resolver.onCancel { stopped.increment() }
            resolvers[index] = resolver
            workStopped[index] = stopped
            promise = pending
        case .settled(let outcome):
            if case .value(let value) = outcome { promise = Promise(value: value) } else { promise = Promise(error: TestError(id: index)) }
        case .then(let parent, let add): promise = promises[parent].then(on: context) { $0 + add }
        case .recover(let parent, let value): promise = promises[parent].recover(on: context) { _ in value }
        case .ensure(let parent): promise = promises[parent].ensure(on: context) {}
        case .flatMap(let parent, let target):
            let targetPromise = promises[target]
            promise = promises[parent].flatMap(on: context) { _ in
                ran.withLock { $0 = true }
                return targetPromise
            }
        }
        promises.append(promise)
        model.add(kind)
        log.append("#\(index) = \(kind) on \(type(of: context))")
    }

    mutating func randomStep(unsettledRoots: inout [Int]) -> Step {
        let roll = Int.random(in: 0..<10, using: &random)
        if roll < 3 || unsettledRoots.isEmpty {
            return .cancel(Int.random(in: 0..<promises.count, using: &random))
        }
        // A root follows an earlier promise only: none of those can wait on it, so no cycle.
        if roll < 6, let position = unsettledRoots.indices.filter({ unsettledRoots[$0] > 0 }).randomElement(using: &random) {
            let root = unsettledRoots.remove(at: position)
            return .resolve(root, with: Int.random(in: 0..<root, using: &random))
        }
        var batch: [(index: Int, outcome: PromiseModel.Outcome)] = []
        for _ in 0..<Int.random(in: 1...min(3, unsettledRoots.count), using: &random) {
            let root = unsettledRoots.remove(at: Int.random(in: 0..<unsettledRoots.count, using: &random))
            batch.append((root, Bool.random(using: &random) ? .value(10 * root) : .error(root)))
        }
        return .settle(batch)
    }

    /// Applies `step` to the promises, from `threads` threads, and to the model.
    mutating func perform(_ step: Step, threads: Int) async {
        let all = actions(for: step)
        let start = Int.random(in: 0..<threads, using: &random)
        await withTaskGroup(of: Void.self) { group in
            for (offset, action) in all.enumerated() {
                let thread = Self.threads[(start + offset) % threads]
                group.addTask { await withCheckedContinuation { done in thread.async { action(); done.resume() } } }
            }
        }
    }

    /// Applies `step` to the model and returns what applies it to the promises.
    mutating func actions(for step: Step) -> [@Sendable () -> Void] {
        var actions: [@Sendable () -> Void] = []
        switch step {
        case .settle(let batch):
            for (index, outcome) in batch {
                let resolver = resolvers[index]!
                switch outcome {
                case .value(let value):
                    actions.append { resolver.fulfill(value) }
                    model.fulfill(index, value)
                default:
                    actions.append { resolver.reject(TestError(id: index)) }
                    model.reject(index, index)
                }
            }
        case .resolve(let index, let target):
            let resolver = resolvers[index]!, targetPromise = promises[target]
            actions.append { resolver.resolve(with: targetPromise) }
            model.resolve(index, with: target)
        case .cancel(let index):
            let promise = promises[index]
            actions.append { promise.cancel() }
            model.cancel(index)
        }
        log.append(step.description)
        return actions
    }

    /// Waits until the promises have done what the model says, then compares every promise.
    func check(after step: String) async throws -> Bool {
        // A wait for what the model says must happen: up to the suite's hang guard (a loaded run
        // of the whole suite once took more than 20 s here).
        let deadline = HangDeadline()
        while !caughtUp() {
            guard !deadline.hasPassed else { break }
            try await Task.sleep(for: .milliseconds(1))
        }
        return report(after: step)
    }

    /// Compares every promise with the model now; records the mismatches, if any.
    func report(after step: String) -> Bool {
        var mismatches: [String] = []
        for (index, node) in model.nodes.enumerated() {
            let actual = observed(promises[index].result)
            if actual != node.outcome {
                mismatches.append("#\(index): expected \(node.outcome.map(\.description) ?? "pending"), got \(actual.map(\.description) ?? "pending")")
            }
            if let stopped = workStopped[index], stopped.current != (node.workStopped ? 1 : 0) {
                mismatches.append("#\(index): onCancel ran \(stopped.current) times, expected \(node.workStopped ? 1 : 0)")
            }
        }
        guard mismatches.isEmpty else {
            Issue.record("""
                Model mismatch after \(step) (replay: ACTORPROMISE_MODEL_SEED=\(seed) ACTORPROMISE_MODEL_ROUNDS=1)
                \(mismatches.joined(separator: "\n"))
                graph and steps:
                \(log.joined(separator: "\n"))
                """)
            return false
        }
        return true
    }

    /// Whether everything the model says has happened has happened.
    func caughtUp() -> Bool {
        for (index, node) in model.nodes.enumerated() {
            if node.outcome != nil, promises[index].isPending { return false }
            if node.handlerRan, !handlerRan[index].current { return false }
            if node.workStopped, workStopped[index]?.current != 1 { return false }
            // A handler's flag is set before it returns the promise to follow: the follower is
            // registered with that promise a moment later, and a cancel in between would take
            // away a dependent the model already counts.
            if node.outcome == nil, let target = node.adoptee, promises[target].isPending,
               promises[target].core.isFollowed(by: promises[index].core) != true {
                return false
            }
        }
        return true
    }

    func observed(_ result: Result<Int, any Error>?) -> PromiseModel.Outcome? {
        switch result {
        case nil: nil
        case .success(let value): .value(value)
        case .failure(let error as TestError): .error(error.id)
        case .failure(let error): error.isCancellation ? .cancelled : .error(-1)
        }
    }
}
