import Testing
import ActorPromiseTesting
import Dispatch
import Foundation
@testable import ActorPromise

/// Randomized model test of what every observer sees, over every public operator and combinator,
/// lazy and retried bodies, timers on a manual scheduler, `whenComplete`, blocking `wait`s and
/// awaiting tasks (nonisolated, in an actor, on the main actor) cancelled at random moments, on
/// every kind of context (inline, the pool, main, and a `SerialQueue`, `ConcurrentQueue`,
/// `OperationExecutor`, `RunLoopThread`, `DispatchQueue` and `OperationQueue` made per round and
/// released mid-flight) — with settlements, cancels, time and the contexts' own controls (suspend,
/// resume and cancel-all of the operation executor, stop of the run-loop thread) racing from three
/// threads.
///
/// Where ``ModelCheckTests`` predicts each promise's outcome from a model of the rules, this test
/// checks the rules every outcome must keep, whatever the interleaving:
/// - every promise settles (nothing waits for ever because of a cancel or a released context);
/// - every `whenComplete` callback runs exactly once, with the outcome its promise settled with
///   (R1, B5) — but one its context was told not to run (a cancelled operation, a stopped run
///   loop), which never runs (see *When a context does not run a handler*) — and so does every
///   `wait` and every awaiter whose task was not cancelled (B1); an awaiter whose task was
///   cancelled throws the cancellation or returns the outcome (B2);
/// - the unhandled-rejection reports are exactly the rejections nobody took (R14): one for each
///   promise rejected with an error that no party — derived promise, combinator, follower,
///   callback, awaiter or `wait` — registered on, none for any other (debug builds, which record
///   the sites that tell the round's promises apart);
/// - everything the round made — promises, contexts — is freed afterwards (weak references).
///
/// `ACTORPROMISE_OBSERVER_ROUNDS` sets the number of rounds (default 300),
/// `ACTORPROMISE_OBSERVER_SEED` the first round's seed (default: random). A failing round prints
/// its seed and its script; the same seed builds the same graph and the same script.
@Suite("Model check: every operator, observer and context, against the rules observers keep")
struct ObserverModelTests {
    /// The abandonments these tests provoke are recorded, not printed as warnings.
    init() { AbandonmentLog.install() }

    static let rounds = TestSettings.rounds("ACTORPROMISE_OBSERVER_ROUNDS", quick: 100, long: 300)
    static let firstSeed = TestSettings.seed("ACTORPROMISE_OBSERVER_SEED")

    @Test("R1 R5 R5b R14 B1 B2 B5 L1 random graphs of every operator: each observer sees its promise's outcome once, all is freed")
    func randomRounds() async throws {
        ReportLog.install()
        try await AsyncMutex.memoryHeavy.withLock { () async throws in
            var residentAfterWarmUp = 0
            for round in 0..<Self.rounds {
                // Long runs say whether resident memory grew after the first thousand rounds.
                if round == 1_000 { residentAfterWarmUp = residentBytes() }
                let seed = Self.firstSeed &+ UInt64(round)
                var round = ObserverRound(seed: seed)
                let failure = await round.run()
                if let failure {
                    Issue.record("observer model round failed, replay with ACTORPROMISE_OBSERVER_SEED=\(seed): \(failure)")
                    break
                }
            }
            if residentAfterWarmUp > 0 {
                print("ObserverModelTests: resident memory \(residentAfterWarmUp >> 20) MiB after 1,000 rounds, \(residentBytes() >> 20) MiB after \(Self.rounds)")
            }
        }
    }
}

/// One round: a random graph, a random script of actions split over three threads, then checks.
struct ObserverRound {
    let seed: UInt64
    var random: SplitMix64

    init(seed: UInt64) {
        self.seed = seed
        self.random = SplitMix64(state: seed)
    }

    /// What a thread of the script does.
    enum Action: CustomStringConvertible {
        case fulfil(Int, Int)
        case reject(Int, Int)
        case cancel(Int)
        case advance
        case suspendOperations, resumeOperations, cancelOperations
        case stopLoop
        case releaseContexts

        var description: String {
            switch self {
            case .fulfil(let root, let value): "fulfil root \(root) with \(value)"
            case .reject(let root, let id): "reject root \(root) with \(id)"
            case .cancel(let index): "cancel #\(index)"
            case .advance: "advance the clock"
            case .suspendOperations: "suspend the operation executor"
            case .resumeOperations: "resume the operation executor"
            case .cancelOperations: "cancel the operation executor's queued work"
            case .stopLoop: "stop the run-loop thread"
            case .releaseContexts: "release the round's contexts"
            }
        }
    }

    /// An outcome as text, so that outcomes of any error type compare: the same error value
    /// prints the same.
    static func text(_ result: Result<Int, any Error>) -> String {
        switch result {
        case .success(let value): "value \(value)"
        case .failure(let error): "error \(error)"
        }
    }

    /// Tells this round's promises apart from every other round's in the sites that R14 reports
    /// name: promise `i` of the round is made at line `token * 1000 + i` of this file (`+ 900` for
    /// the promises an operator makes on the way).
    var token: UInt { UInt(seed % 4_000_000) + 1 }

    /// How the sites of this file begin.
    static let file = "ActorPromiseTests/ObserverModelTests.swift:"

    func site(_ index: Int) -> UInt { token * 1_000 + UInt(index) }

    /// Whether anybody registered on a promise: yes if any party surely did, unknown if one may
    /// have, no otherwise.
    static func registered(_ takings: [Taking]) -> Bool? {
        let answers = takings.map(\.registered)
        if answers.contains(true) { return true }
        return answers.contains(nil) ? nil : false
    }

    /// R14: the round's reports are exactly its rejections that nobody took — one report for each
    /// rejected promise nobody registered on, none for the others (a promise whose registration
    /// the round cannot tell may be reported once or not at all).
    static func checkReports(_ reports: [UnhandledRejection], token: UInt, rejections: [(index: Int, registered: Bool?)]) -> String? {
        var counts: [UInt: Int] = [:]
        for report in reports where report.site.hasPrefix(Self.file) {
            guard let line = UInt(report.site.dropFirst(Self.file.count)) else { continue }
            // A promise of another round, or made at a line of this file (an observer's tap): it
            // would be this round's, as rounds run one after another.
            if line >= 1_000, line / 1_000 != token { continue }
            counts[line, default: 0] += 1
        }
        for (index, registered) in rejections {
            let line = token * 1_000 + UInt(index)
            let count = counts.removeValue(forKey: line) ?? 0
            switch registered {
            case true? where count != 0:
                return "#\(index) was rejected and taken, but reported \(count) times as unhandled"
            case false? where count != 1:
                return "#\(index) was rejected and nobody registered on it, but it was reported \(count) times"
            case nil where count > 1:
                return "#\(index) was reported \(count) times"
            default: break
            }
        }
        if let (line, count) = counts.first.map({ ($0.key, $0.value) }) {
            return "a promise made at line \(line) (\(line >= 1_000 ? "#\(line % 1_000) of the round" : "an observer")) was reported \(count) times, but it was not a rejection nobody took"
        }
        return nil
    }

    mutating func pick<T>(_ items: [T]) -> T { items[Int.random(in: 0..<items.count, using: &random)] }
    mutating func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &random) < percent }

    /// Runs the round; returns what went wrong, or `nil`.
    mutating func run() async -> String? {
        var log: [String] = []
        let time = ManualScheduler()
        var watched: [WeakReference] = []
        let failure: String?
        /// What registered on each promise, and the rejected ones with whether anyone did.
        var takings: [[Taking]] = []
        var rejections: [(index: Int, registered: Bool?)] = []
        var undecided: [Undecided] = []
        let reportsBefore = ReportLog.count
        let token = self.token
        do {
            // Contexts of this round: only `held` keeps them once the graph is built, and the
            // script lets go of it at a random moment (L1: queued work still runs). A context is
            // freed once nothing is queued on it, which the checks use as "all its work is done".
            var own: [any ExecutionContext]? = [
                SerialQueue(label: "observer.serial"), ConcurrentQueue(label: "observer.concurrent"),
                OperationExecutor(label: "observer.operations", maxConcurrentCount: 1),
                RunLoopThread(name: "observer.loop"), DispatchQueue(label: "observer.dispatch"), OperationQueue(),
            ]
            let contextWatch = own!.map { WeakReference($0 as AnyObject) }
            watched += contextWatch.prefix(4)
            let held = Locked<[any ExecutionContext]?>(own)
            let weakOperations = contextWatch[2]
            let weakLoop = contextWatch[3]
            var contexts: [any ExecutionContext]? = [.inline, .global, MainContext.shared] + own!
            own = nil

            // Roots: pending (with and without interest tracking), lazy, settled.
            var promises: [Promise<Int>] = []
            var resolvers: [Resolver<Int>] = []
            /// Lazy promises: one that nobody observes never runs its body, so stays pending (R10).
            var lazy: Set<Int> = []
            for index in 0..<Int.random(in: 2...4, using: &random) {
                let (promise, resolver) = Promise<Int>.pending(tracksInterest: chance(70), line: site(promises.count))
                promises.append(promise)
                resolvers.append(resolver)
                log.append("#\(promises.count - 1) = root \(index)")
            }
            // Its body may first run after the script (a combinator that reaches it late): it
            // keeps its resolver until the round ends, then is fulfilled at once.
            let lazyResolver = Locked<(resolver: Resolver<Int>?, ended: Bool)>((nil, false))
            promises.append(Promise<Int>.lazy(line: site(promises.count)) { resolver in
                let ended = lazyResolver.withLock { state in
                    if !state.ended { state.resolver = resolver }
                    return state.ended
                }
                if ended { resolver.fulfill(-2) }
            })
            lazy.insert(promises.count - 1)
            log.append("#\(promises.count - 1) = lazy root (settled at the end)")
            if chance(50) {
                let line = site(promises.count)
                promises.append(chance(50) ? Promise(value: 100, line: line) : Promise(error: TestError(id: 100), line: line))
                log.append("#\(promises.count - 1) = settled")
            }

            // Derived promises, each from one or two earlier ones.
            takings = Array(repeating: [], count: promises.count)
            for _ in 0..<Int.random(in: 6...18, using: &random) {
                let sourceIndex = Int.random(in: 0..<promises.count, using: &random)
                let otherIndex = Int.random(in: 0..<promises.count, using: &random)
                let source = promises[sourceIndex]
                let other = promises[otherIndex]
                let context = pick(contexts!)
                let (promise, name, sourceTaking, otherTaking) = derive(source, other, on: context, time: time, line: site(promises.count))
                takings[sourceIndex].append(sourceTaking)
                takings[otherIndex].append(otherTaking)
                promises.append(promise)
                takings.append([])
                if name.hasPrefix("lazy") { lazy.insert(promises.count - 1) }
                log.append("#\(promises.count - 1) = \(name) on \(type(of: context)) from #\(sourceIndex), #\(otherIndex)")
            }
            watched += promises.map { WeakReference($0.core) }

            // Observers: whenComplete on a random context, awaiting tasks (some cancelled at a
            // random moment), blocking waits on a dispatch queue.
            /// An observer's record. On the operation executor, whose queued work the script may
            /// cancel, the observer is a `tap` whose promise says what happened: it settles after
            /// the callback ran, or is cancelled if its operation was (and the callback never runs).
            struct Observation { let index: Int; let seen: Locked<[String]>; var tapped: Promise<Int>? = nil }
            var completions: [Observation] = []
            var awaiters: [(index: Int, task: Task<Result<Int, any Error>, Never>, cancelled: Bool)] = []
            var waits: [Observation] = []
            let waitGroup = DispatchGroup()
            for index in promises.indices where chance(45) {
                let seen = Locked<[String]>([])
                let context = pick(contexts!)
                // On the two contexts the script may tell not to run it, the observer is a tap.
                if context is OperationExecutor || context is RunLoopThread {
                    // Freed with the handler: once it is, the handler ran or never will.
                    let handlerLife = Locked(0)
                    watched.append(WeakReference(handlerLife))
                    let tapped = promises[index].tap(on: context) { result in
                        withExtendedLifetime(handlerLife) {}
                        seen.withLock { $0.append(Self.text(result)) }
                    }
                    completions.append(Observation(index: index, seen: seen, tapped: tapped))
                    takings[index].append(.yes)
                } else {
                    promises[index].whenComplete(on: context) { (result: Result<Int, any Error>) in
                        seen.withLock { $0.append(Self.text(result)) }
                    }
                    completions.append(Observation(index: index, seen: seen))
                    takings[index].append(.yes)
                }
            }
            // Awaiters from nonisolated code, from an actor and from the main actor.
            let awaitingActor = AwaitingActor()
            for index in promises.indices where chance(20) {
                let promise = promises[index]
                let task: Task<Result<Int, any Error>, Never> = switch Int.random(in: 0..<3, using: &random) {
                case 0: Task { await promise.outcome }
                case 1: Task { await awaitingActor.outcome(of: promise) }
                default: Task { @MainActor in await promise.outcome }
                }
                let cancelled = chance(40)
                awaiters.append((index, task, cancelled))
                // A task cancelled before it awaited never registers.
                takings[index].append(cancelled ? .unknown : .yes)
            }
            contexts = nil
            for index in promises.indices where chance(8) {
                let promise = promises[index]
                let seen = Locked<[String]>([])
                // A thread of its own: a blocked thread of Dispatch's global queues is one fewer
                // for the scripts and for the cooperative pool that runs the awaiting tasks.
                waitGroup.enter()
                Thread {
                    let result = Result { try promise.wait() }
                    seen.withLock { $0.append(Self.text(result)) }
                    waitGroup.leave()
                }.start()
                waits.append(Observation(index: index, seen: seen))
                takings[index].append(.yes)
            }

            // The script: settlements, cancels, time, the executor's controls, the release.
            var actions: [Action] = []
            for root in resolvers.indices where chance(80) {
                actions.append(chance(70) ? .fulfil(root, Int.random(in: 0...50, using: &random)) : .reject(root, root))
            }
            for _ in 0..<Int.random(in: 0...4, using: &random) { actions.append(.cancel(Int.random(in: 0..<promises.count, using: &random))) }
            if chance(60) { actions.append(.advance) }
            if chance(30) { actions += [.suspendOperations, .resumeOperations] }
            if chance(15) { actions.append(.cancelOperations) }
            if chance(10) { actions.append(.stopLoop) }
            actions.append(.releaseContexts)
            actions.shuffle(using: &random)
            if let suspend = actions.firstIndex(where: { if case .suspendOperations = $0 { true } else { false } }),
               let resume = actions.firstIndex(where: { if case .resumeOperations = $0 { true } else { false } }),
               resume < suspend {
                actions.swapAt(suspend, resume)
            }
            var scripts: [[Action]] = [[], [], []]
            for action in actions {
                // The executor's suspend and resume stay on one thread, in that order.
                switch action {
                case .suspendOperations, .resumeOperations, .cancelOperations: scripts[0].append(action)
                default: scripts[Int.random(in: 0..<3, using: &random)].append(action)
                }
            }
            log.append("script: " + scripts.map { $0.map(\.description).joined(separator: "; ") }.joined(separator: " | "))
            awaiters.filter(\.cancelled).forEach { log.append("the task awaiting #\($0.index) is cancelled") }

            let allPromises = promises
            let allResolvers = resolvers
            let group = DispatchGroup()
            for script in scripts {
                DispatchQueue.global().async(group: group) {
                    for action in script {
                        switch action {
                        case .fulfil(let root, let value): allResolvers[root].fulfill(value)
                        case .reject(let root, let id): allResolvers[root].reject(TestError(id: id))
                        case .cancel(let index): allPromises[index].cancel()
                        case .advance: time.advance(by: .seconds(1))
                        case .suspendOperations: (weakOperations.object as? OperationExecutor)?.suspend()
                        case .resumeOperations: (weakOperations.object as? OperationExecutor)?.resume()
                        case .cancelOperations: (weakOperations.object as? OperationExecutor)?.cancelAllOperations()
                        case .stopLoop: (weakLoop.object as? RunLoopThread)?.stop()
                        case .releaseContexts: held.withLock { $0 = nil }
                        }
                    }
                }
            }
            for awaiter in awaiters where awaiter.cancelled { awaiter.task.cancel() }
            await withCheckedContinuation { done in group.notify(queue: .global()) { done.resume() } }

            // Let everything settle: every root settled, time run out.
            for resolver in resolvers { resolver.fulfill(-1) }
            lazyResolver.withLock { $0.ended = true; return $0.resolver }?.fulfill(-2)
            time.advance(by: .seconds(10))
            let mustSettle = promises.indices.filter { !lazy.contains($0) }.map { promises[$0] }
            if let unsettled = await Self.waitUntilSettled(mustSettle, time: time) {
                failure = "\(String(reflecting: mustSettle[unsettled])) never settled; all promises:\n"
                    + promises.enumerated().map { "#\($0.offset) \(String(reflecting: $0.element))" }.joined(separator: "\n")
            } else {
                let dropsWork = actions.contains {
                    switch $0 { case .cancelOperations, .stopLoop: true; default: false }
                }
                (failure, undecided) = await Self.check(
                    promises: promises,
                    completions: completions.map { ($0.index, $0.seen, $0.tapped) }, dropsWork: dropsWork,
                    waits: waits.map { ($0.index, $0.seen) }, waitGroup: waitGroup, awaiters: awaiters)
            }
            lazyResolver.withLock { $0.resolver = nil }
            rejections = promises.indices.compactMap { index in
                guard case .failure(let error)? = promises[index].result, !error.isCancellation,
                      (error as? PromiseError)?.code != .abandoned else { return nil }
                return (index, Self.registered(takings[index]))
            }
        }
        if let failure { return failure + "\n" + log.joined(separator: "\n") }
        if !(await waitUntilFreed(watched)) {
            let kept = watched.compactMap { $0.object.map { String(reflecting: $0) } }
            return "not freed: \(kept)\n" + log.joined(separator: "\n")
        }
        // Every handler is freed now: one whose tap was cancelled before it called back either
        // ran with its promise's outcome (a cancel that reached the tap, whose handler then sees
        // it, R5b) or was dropped with its operation.
        for (index, seen, expected) in undecided where !(seen.current.isEmpty || seen.current == [expected]) {
            return "the tap on #\(index) saw \(seen.current), the promise settled with \(expected)\n" + log.joined(separator: "\n")
        }
        #if DEBUG
        // Sites, which say which promise a report is about, are recorded in debug builds only.
        let reports = ReportLog.since(reportsBefore)
        // The log keeps other suites' reports; this round's go, so that long runs hold no more.
        ReportLog.remove { $0.site.hasPrefix(Self.file) }
        if let failure = Self.checkReports(reports, token: token, rejections: rejections) {
            return failure + "\n" + log.joined(separator: "\n")
        }
        #endif
        return nil
    }

    /// Whether a party registered on a promise (so that a rejection of it counts as taken, R14),
    /// as far as the graph says: some registrations happen only if a handler, body or attempt ran,
    /// which its flag records; a few depend on timing the round does not see.
    enum Taking {
        case yes, no, unknown
        case ifRan(Locked<Bool>)

        /// `true`, `false`, or `nil` when the round cannot tell.
        var registered: Bool? {
            switch self {
            case .yes: true
            case .no: false
            case .unknown: nil
            case .ifRan(let ran): ran.current ? true : false
            }
        }
    }

    /// A promise derived from `source` (and `other`) by a random operator or combinator, made at
    /// `line` (promises made on the way at `line + 900`), and whether it registered on `source`
    /// and `other`.
    mutating func derive(
        _ source: Promise<Int>, _ other: Promise<Int>, on context: any ExecutionContext, time: ManualScheduler, line: UInt
    ) -> (Promise<Int>, String, source: Taking, other: Taking) {
        let inner = line + 900
        switch Int.random(in: 0..<22, using: &random) {
        case 0: return (source.then(on: context, line: line) { $0 + 1 }, "then", .yes, .no)
        case 1: return (source.map(on: context, line: line) { $0 * 2 }, "map", .yes, .no)
        case 2:
            let ran = Locked(false)
            return (source.flatMap(on: context, line: line) { _ in
                ran.withLock { $0 = true }
                return other
            }, "flatMap to another", .yes, .ifRan(ran))
        case 3: return (source.flatMap(on: context, line: line) { Promise(value: $0 + 3, line: inner) }, "flatMap to a settled one", .yes, .no)
        case 4: return (source.recover(on: context, line: line) { _ in -7 }, "recover", .yes, .no)
        case 5: return (source.then(on: context, line: line, onFulfilled: { $0 + 5 }, onRejected: { _ in -5 }), "two-handler then", .yes, .no)
        case 6: return (source.ensure(on: context, line: line) {}, "ensure", .yes, .no)
        case 7: return (source.ensureThen(on: context, line: line) { Promise<Void>(value: (), line: inner) }, "ensureThen", .yes, .no)
        case 8: return (source.tap(on: context, line: line) { _ in }, "tap", .yes, .no)
        case 9: return (source.validate(on: context, line: line) { $0 % 3 != 0 }, "validate", .yes, .no)
        case 10:
            let caught = source.catch(on: context, line: inner) { _ in }
            return (caught.map(on: .inline, line: line) { 9 }, "catch, then 9", .yes, .no)
        case 11: return (Promise.all([source, other], line: inner).map(on: .inline, line: line) { $0.reduce(0, +) }, "all", .yes, .yes)
        case 12: return (Promise.allSettled([source, other], line: inner).map(on: .inline, line: line) { $0.count }, "allSettled", .yes, .yes)
        case 13: return (Promise.any([source, other], line: line), "any", .yes, .yes)
        case 14: return (Promise.race([source, other], line: line), "race", .yes, .yes)
        case 15: return (zip(source, other, line: inner).map(on: .inline, line: line) { $0 + $1 }, "zip", .yes, .yes)
        case 16:
            // The second input is observed once the first one's step ran: when, the round
            // cannot tell.
            return (Promise.reduce([source, other], into: 0, on: context, line: line) { $0 + $1 }, "reduce", .yes, .unknown)
        case 17:
            let inputs = [source, other]
            let asked = [Locked(false), Locked(false)]
            let mapped = Promise<Int>.map(0..<2, maxConcurrency: 1, on: context, line: inner) { index in
                asked[index].withLock { $0 = true }
                return inputs[index]
            }
            return (mapped.map(on: .inline, line: line) { $0.reduce(0, +) }, "map(maxConcurrency:)", .ifRan(asked[0]), .ifRan(asked[1]))
        case 18:
            let asked = [Locked(false), Locked(false)]
            let retried = Promise<Int>.retry(attempts: 2, delay: .fixed(.seconds(1)), scheduler: time, line: line) { attempt in
                asked[min(attempt, 1)].withLock { $0 = true }
                return attempt == 0 ? source : other
            }
            return (retried, "retry", .ifRan(asked[0]), .ifRan(asked[1]))
        case 19: return (source.timeout(after: .seconds(1), scheduler: time, line: line), "timeout", .yes, .no)
        case 20: return (source.delay(.seconds(1), scheduler: time, line: line), "delay", .yes, .no)
        default:
            let lazySource = source
            let ran = Locked(false)
            return (Promise<Int>.lazy(line: line) { resolver in
                ran.withLock { $0 = true }
                resolver.resolve(with: lazySource)
            }, "lazy following (no context)", .ifRan(ran), .no)
        }
    }

    /// Waits (polling snapshots, as observing would change interest) until every promise has
    /// settled, moving the clock on meanwhile; returns the index of one that never did.
    static func waitUntilSettled(_ promises: [Promise<Int>], time: ManualScheduler) async -> Int? {
        let deadline = HangDeadline()
        while !deadline.hasPassed {
            guard let pending = promises.firstIndex(where: \.isPending) else { return nil }
            time.advance(by: .seconds(1))
            _ = pending
            try? await Task.sleep(for: .milliseconds(1))
        }
        return promises.firstIndex(where: \.isPending)
    }

    /// Whether a tap's handler was dropped by its context as documented: its operation cancelled
    /// (the tap is cancelled) or its run-loop thread stopped (the tap is abandoned).
    static func wasDropped(_ tapped: Promise<Int>) -> Bool {
        guard case .failure(let error as PromiseError)? = tapped.result else { return false }
        return error.code == .cancelled || error.code == .abandoned
    }

    /// A tap that was cancelled or abandoned before its handler called back: the round decides,
    /// once the handler is freed, whether it ran (with `expected`) or was dropped.
    typealias Undecided = (index: Int, seen: Locked<[String]>, expected: String)

    static func check(
        promises: [Promise<Int>], completions: [(Int, Locked<[String]>, Promise<Int>?)], dropsWork: Bool,
        waits: [(Int, Locked<[String]>)],
        waitGroup: DispatchGroup, awaiters: [(index: Int, task: Task<Result<Int, any Error>, Never>, cancelled: Bool)]
    ) async -> (failure: String?, undecided: [Undecided]) {
        var undecided: [Undecided] = []
        func settled(_ index: Int) -> String { promises[index].result.map(text) ?? "pending" }
        // Callbacks run after their promise settled, on their context: wait for each (a tap's
        // promise settles once its callback ran). A tap whose operation the script cancelled is
        // cancelled and never calls back, as documented (E3) — but a tap cancelled by a cancel
        // that reached it still calls back, later: the round decides those once all is freed.
        let deadline = HangDeadline()
        for (index, seen, tapped) in completions {
            if let tapped {
                _ = await tapped.outcome
                if seen.current.isEmpty, dropsWork, Self.wasDropped(tapped) {
                    undecided.append((index, seen, settled(index)))
                    continue
                }
            }
            while seen.current.isEmpty, !deadline.hasPassed { try? await Task.sleep(for: .milliseconds(1)) }
            if seen.current != [settled(index)] {
                return ("the callback on #\(index) saw \(seen.current), the promise settled with \(settled(index))", undecided)
            }
        }
        await withCheckedContinuation { done in waitGroup.notify(queue: .global()) { done.resume() } }
        for (index, seen) in waits where seen.current != [settled(index)] {
            return ("wait() on #\(index) returned \(seen.current), the promise settled with \(settled(index))", undecided)
        }
        for awaiter in awaiters {
            let result = await awaiter.task.value
            let expected = settled(awaiter.index)
            let isCancellation = if case .failure(let error) = result { error.isCancellation } else { false }
            if text(result) != expected, !(awaiter.cancelled && isCancellation) {
                return ("an awaiter of #\(awaiter.index) got \(text(result)), the promise settled with \(expected)", undecided)
            }
        }
        // The checks run after the wait for callbacks: no callback may run twice meanwhile.
        let decided = completions.filter { completion in !undecided.contains { $0.seen === completion.1 } }
        for (index, seen, _) in decided where seen.current.count != 1 {
            return ("whenComplete on #\(index) ran \(seen.current.count) times", undecided)
        }
        return (nil, undecided)
    }
}

/// Awaits from an actor's method, as an actor that caches results would.
actor AwaitingActor {
    func outcome(of promise: Promise<Int>) async -> Result<Int, any Error> {
        await promise.outcome
    }
}
