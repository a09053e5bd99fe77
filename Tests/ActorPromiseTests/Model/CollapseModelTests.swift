import ActorPromiseTesting
import Synchronization
import Testing
@testable import ActorPromise

/// Collapsing is invisible: seeded random recursive loops, each run twice on the test runtime — once with
/// the collapsing of adoption chains switched off, once on — whose every observation must match,
/// step by step.
///
/// A round is a loop `poll(i) = step(i).then(on: context) { done in done ? Promise(value: i) :
/// poll(i + 1) }` whose steps the script settles (continue, finish, fail), and around it what a
/// user can do: keep some steps, the roots some steps derive from, and some levels (which then may
/// not collapse), observe a kept level, cancel the loop, a kept step or root (settled or not) or a
/// kept level, let a kept one go. After
/// each action the runtime runs until idle and the round records what a user can see: every
/// kept promise's state, every callback's outcome in order, every step's `onCancel` count; at the
/// end, the unhandled-rejection reports of the round's errors once everything is released (R14).
/// Collapsing must change none of it, and must free levels in some rounds (else the test proves
/// nothing).
///
/// `ACTORPROMISE_COLLAPSE_ROUNDS` sets the number of rounds (default 300),
/// `ACTORPROMISE_COLLAPSE_SEED` the first seed; a failure names the seed that replays it.
@Suite("R3 collapsing a recursive loop changes nothing a user sees", .serialized)
struct CollapseModelTests {
    static let rounds = TestSettings.rounds("ACTORPROMISE_COLLAPSE_ROUNDS", quick: 100, long: 300)
    static let firstSeed = TestSettings.seed("ACTORPROMISE_COLLAPSE_SEED")

    @Test("R1 R3 R5 R5b R6 R7 R14 random loops, collapsing off and on, the same seeds: the same observations")
    func sameWithAndWithoutCollapsing() async throws {
        try await AsyncMutex.collapsing.withLock { () async throws in
            defer { collapsesAdoptionChains.store(true, ordering: .relaxed) }
            var freedOff = 0, freedOn = 0
            for round in 0..<Self.rounds {
                let seed = Self.firstSeed &+ UInt64(round)
                collapsesAdoptionChains.store(false, ordering: .relaxed)
                var offRound = LoopRound(seed: seed, mode: "off")
                let off = offRound.run()
                collapsesAdoptionChains.store(true, ordering: .relaxed)
                var onRound = LoopRound(seed: seed, mode: "on")
                let on = onRound.run()
                freedOff += off.freedWhileRunning
                freedOn += on.freedWhileRunning
                guard on.observations == off.observations else {
                    let first = zip(on.observations, off.observations).enumerated().first { $0.element.0 != $0.element.1 }?.offset
                        ?? min(on.observations.count, off.observations.count)
                    Issue.record("""
                        seed \(seed) (ACTORPROMISE_COLLAPSE_SEED=\(seed) ACTORPROMISE_COLLAPSE_ROUNDS=1): \
                        observations differ at \(first)
                        script: \(off.script.joined(separator: "; "))
                        off: \(off.observations.dropFirst(max(0, first - 2)).prefix(6))
                        on:  \(on.observations.dropFirst(max(0, first - 2)).prefix(6))
                        """)
                    return
                }
            }
            #expect(freedOff == 0, "without collapsing, no level goes while its loop runs")
            #expect(freedOn > 0, "collapsing freed no level in \(Self.rounds) rounds")
        }
    }
}

/// One round of ``CollapseModelTests``: a loop, a script, what was seen.
struct LoopRound {
    /// What the loop's code and the callbacks share with the script (all on the runtime's thread).
    final class Shared: @unchecked Sendable {
        // Safety: touched only on the test runtime's one thread (every context here is driven by
        // it), under `run`.
        var current: (index: Int, resolver: Resolver<Bool>)?
        var keptSteps: [Int: Promise<Bool>] = [:]
        var keptRoots: [Int: Promise<Bool>] = [:]
        var keptLevels: [Int: Promise<Int>] = [:]
        var watchedLevels: [WeakReference] = []
        var cancels: [Int: Int] = [:]
        var callbacks: [String] = []
        var keepStep: [Bool] = []
        var keepRoot: [Bool] = []
        /// How many promises the step derives from (0: it is the root its resolver settles).
        var derivations: [Int] = []
        var keepLevel: [Bool] = []
        var tracksInterest: [Bool] = []
        var context: [Int] = []
    }

    let seed: UInt64
    let mode: String
    var random: SplitMix64
    var script: [String] = []
    var observations: [String] = []
    var freedWhileRunning = 0

    init(seed: UInt64, mode: String) {
        self.seed = seed
        self.mode = mode
        random = SplitMix64(state: seed)
    }

    /// The errors of this round: an identity no other round or test uses.
    func error(_ index: Int) -> TestError { TestError(id: Int(truncatingIfNeeded: seed % 1_000_000) * 1_000 + index) }

    mutating func run() -> LoopRound {
        let shared = Shared()
        let levels = 48
        for _ in 0..<levels {
            shared.keepStep.append(Int.random(in: 0..<4, using: &random) == 0)
            shared.keepRoot.append(Int.random(in: 0..<5, using: &random) == 0)
            shared.derivations.append([0, 0, 1, 2][Int.random(in: 0..<4, using: &random)])
            shared.keepLevel.append(Int.random(in: 0..<5, using: &random) == 0)
            shared.tracksInterest.append(Int.random(in: 0..<6, using: &random) != 0)
            shared.context.append(Int.random(in: 0..<3, using: &random))
        }
        let runtime = PromiseTestRuntime(seed: seed)
        let serial = SerialQueue(label: "collapse.serial")
        let contexts: [any ExecutionContext] = [.inline, .global, serial]
        let made: Promise<Int>? = runtime.run { () -> Promise<Int>? in
            @Sendable func poll(_ index: Int) -> Promise<Int> {
                let (root, resolver) = Promise<Bool>.pending(tracksInterest: shared.tracksInterest[index % levels])
                resolver.onCancel { shared.cancels[index, default: 0] += 1 }
                shared.current = (index, resolver)
                // A step derived from the root (a request's `map`, say), once or twice.
                var step = root
                for _ in 0..<shared.derivations[index % levels] { step = step.then(on: .inline) { $0 } }
                if shared.derivations[index % levels] > 0, shared.keepRoot[index % levels] { shared.keptRoots[index] = root }
                if shared.keepStep[index % levels] { shared.keptSteps[index] = step }
                let level = step.then(on: contexts[shared.context[index % levels]]) { done in
                    done ? Promise(value: index) : poll(index + 1)
                }
                if shared.keepLevel[index % levels] { shared.keptLevels[index] = level }
                shared.watchedLevels.append(WeakReference(level.core))
                return level
            }
            let outer = poll(0)
            outer.whenComplete(on: .inline) { shared.callbacks.append("outer \(Self.describe($0))") }
            return outer
        }
        var outer: Promise<Int>? = made
        runtime.runUntilIdle()
        observe(shared, outer, after: "start")

        for _ in 0..<Int.random(in: 4...40, using: &random) {
            let action = nextAction(shared, outer)
            script.append(action)
            runtime.run { apply(action, shared, &outer) }
            runtime.runUntilIdle()
            observe(shared, outer, after: action)
            if outer == nil || (!outer!.isPending && shared.keptLevels.isEmpty && shared.keptSteps.isEmpty && shared.keptRoots.isEmpty) { break }
        }
        // The end: the loop finishes if it still runs, everything is let go, and the rejections
        // nobody took are reported (R14).
        ReportLog.install()
        let reportsBefore = ReportLog.count
        runtime.run {
            if let (_, resolver) = shared.current.take() { resolver.fulfill(true) }
            outer = nil
            shared.keptLevels.removeAll()
            shared.keptSteps.removeAll()
            shared.keptRoots.removeAll()
        }
        runtime.runUntilIdle()
        observe(shared, outer, after: "end")
        let mine = ReportLog.since(reportsBefore).filter { report in
            guard let error = report.error as? TestError else { return false }
            return error.id / 1_000 == Int(truncatingIfNeeded: seed % 1_000_000)
        }
        observations.append("unhandled: \(mine.map { ($0.error as! TestError).id % 1_000 }.sorted())")
        return self
    }

    /// A script's next action, chosen among those that make sense now.
    mutating func nextAction(_ shared: Shared, _ outer: Promise<Int>?) -> String {
        var choices: [String] = []
        if let (index, _) = shared.current {
            choices += Array(repeating: "continue #\(index)", count: 6)
            choices += ["finish #\(index)", "fail #\(index)"]
        }
        if outer != nil { choices.append("cancel the loop") }
        for index in shared.keptSteps.keys.sorted() { choices += ["cancel step #\(index)", "let go of step #\(index)"] }
        for index in shared.keptRoots.keys.sorted() { choices += ["cancel root #\(index)", "let go of root #\(index)"] }
        for index in shared.keptLevels.keys.sorted() {
            choices += ["cancel level #\(index)", "observe level #\(index)", "let go of level #\(index)"]
        }
        if choices.isEmpty { return "nothing" }
        return choices[Int.random(in: 0..<choices.count, using: &random)]
    }

    func apply(_ action: String, _ shared: Shared, _ outer: inout Promise<Int>?) {
        let words = action.split(separator: " ")
        let index = words.last.flatMap { $0.hasPrefix("#") ? Int($0.dropFirst()) : nil } ?? -1
        switch words.first {
        case "continue", "finish", "fail":
            guard let (_, resolver) = shared.current.take() else { return }
            switch words.first {
            case "continue": resolver.fulfill(false)
            case "finish": resolver.fulfill(true)
            default: resolver.reject(error(index))
            }
        case "cancel":
            if action == "cancel the loop" { outer?.cancel() }
            else if words[1] == "step" { shared.keptSteps[index]?.cancel() }
            else if words[1] == "root" { shared.keptRoots[index]?.cancel() }
            else { shared.keptLevels[index]?.cancel() }
        case "observe":
            shared.keptLevels[index]?.whenComplete(on: .inline) { shared.callbacks.append("level #\(index) \(Self.describe($0))") }
        case "let":
            switch words[3] {
            case "step": shared.keptSteps[index] = nil
            case "root": shared.keptRoots[index] = nil
            default: shared.keptLevels[index] = nil
            }
        default:
            break
        }
    }

    /// Records what a user can see now.
    mutating func observe(_ shared: Shared, _ outer: Promise<Int>?, after action: String) {
        var seen = ["after \(action):", "loop \(outer.map { Self.describe($0) } ?? "let go")"]
        for (index, step) in shared.keptSteps.sorted(by: { $0.key < $1.key }) { seen.append("step #\(index) \(Self.describe(step))") }
        for (index, root) in shared.keptRoots.sorted(by: { $0.key < $1.key }) { seen.append("root #\(index) \(Self.describe(root))") }
        for (index, level) in shared.keptLevels.sorted(by: { $0.key < $1.key }) { seen.append("level #\(index) \(Self.describe(level))") }
        seen.append("current \(shared.current.map { "#\($0.index)" } ?? "none")")
        seen.append("onCancel \(shared.cancels.sorted { $0.key < $1.key })")
        seen.append("callbacks \(shared.callbacks)")
        observations.append(seen.joined(separator: " "))
        // Levels freed while the loop still runs: behind the current one, kept by nobody.
        if outer?.isPending == true, let current = shared.current?.index {
            let freed = shared.watchedLevels.prefix(max(0, current - 1)).filter { $0.object == nil }.count
            freedWhileRunning = max(freedWhileRunning, freed)
        }
    }

    static func describe<T>(_ promise: Promise<T>) -> String {
        guard let outcome = promise.settledOutcome else { return "pending" }
        return describe(outcome) + (promise.isCancelled ? " (cancelled)" : "")
    }

    static func describe<T>(_ result: Result<T, any Error>) -> String {
        switch result {
        case .success(let value): "value \(value)"
        case .failure(let error as TestError): "error \(error.id % 1_000)"
        case .failure(let error) where error.isCancellation: "cancelled"
        case .failure(let error as PromiseError): "\(error.code)"
        case .failure(let error): "\(error)"
        }
    }
}
