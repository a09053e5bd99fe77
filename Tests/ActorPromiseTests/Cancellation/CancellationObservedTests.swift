import Testing
import ActorPromiseTesting
import Dispatch
import ActorPromise

/// Records, per observer, how often it ran and with which error, and lets a test wait for any
/// set of observers to have run.
final class ObserverLog: Sendable {
    let calls = Locked<[String: Int]>([:])
    let errors = Locked<[String: PromiseError.Code]>([:])
    private let ran: [String: Countdown]

    init(_ names: [String]) {
        ran = Dictionary(uniqueKeysWithValues: names.map { ($0, Countdown(1)) })
    }

    func record(_ name: String, _ error: (any Error)?) {
        calls.withLock { $0[name, default: 0] += 1 }
        if let code = (error as? PromiseError)?.code { errors.withLock { $0[name] = code } }
        ran[name]?.tick()
    }

    func count(_ name: String) -> Int { calls.current[name] ?? 0 }

    /// Waits until each of `names` has run (fails with `timedOut` instead of hanging).
    func wait(for names: [String]) async throws {
        for name in names { try await ran[name]!.wait() }
    }
}

@Suite("R5b cancellation is observed")
struct CancellationObservedTests {
    /// Registers one observer of every kind that sees errors, on `promise` and two levels below.
    /// Returns how many observers it registered.
    @discardableResult
    static func observeEveryKind(
        of promise: Promise<Int>, on context: any ExecutionContext, log: ObserverLog
    ) -> [Promise<Int>] {
        var derived: [Promise<Int>] = []
        derived.append(promise.then(on: context) { $0 + 1 }.ensure(on: context) { log.record("then.ensure", nil) })
        derived.append(promise.recover(on: context) { error in log.record("recover", error); return 0 })
        derived.append(promise.then(on: context, onFulfilled: { $0 }, onRejected: { error in
            log.record("onRejected", error)
            throw error
        }))
        derived.append(promise.tap(on: context) { result in
            if case .failure(let error) = result { log.record("tap", error) } else { log.record("tap", nil) }
        })
        derived.append(promise.ensureThen(on: context) { log.record("ensureThen", nil); return Promise() })
        derived.append(promise.then(on: context) { $0 }.then(on: context) { $0 }.then(on: context) { $0 }
            .recover(on: context) { error in log.record("deep.recover", error); return 0 })
        promise.catch(on: context) { error in log.record("catch", error) }
        promise.whenComplete(on: context) { (result: Result<Int, any Error>) in
            if case .failure(let error) = result { log.record("whenComplete", error) } else { log.record("whenComplete", nil) }
        }
        return derived
    }

    static let kinds = ["then.ensure", "recover", "onRejected", "tap", "ensureThen", "deep.recover", "catch", "whenComplete"]

    @Test("R5b every observer kind registered before the cancel runs once with the cancellation error")
    func registeredBefore() async throws {
        let (promise, resolver) = Promise<Int>.pending()
        let log = ObserverLog(Self.kinds)
        Self.observeEveryKind(of: promise, on: .global, log: log)
        promise.cancel(reason: TestError(id: 7))
        try await log.wait(for: Self.kinds)
        withExtendedLifetime(resolver) {}
        for kind in Self.kinds {
            #expect(log.count(kind) == 1, "\(kind)")
            if kind != "then.ensure" && kind != "ensureThen" {
                #expect(log.errors.current[kind] == .cancelled, "\(kind) saw \(String(describing: log.errors.current[kind]))")
            }
        }
    }

    @Test("R5b every observer kind registered after the cancel runs once with the cancellation error")
    func registeredAfter() async throws {
        let (promise, resolver) = Promise<Int>.pending()
        promise.cancel()
        defer { withExtendedLifetime(resolver) {} }
        let log = ObserverLog(Self.kinds)
        Self.observeEveryKind(of: promise, on: .global, log: log)
        try await log.wait(for: Self.kinds)
        for kind in Self.kinds { #expect(log.count(kind) == 1, "\(kind)") }
        #expect(log.errors.current["catch"] == .cancelled)
    }

    @Test("R5b the issue's example: ensure below a then, whenComplete and catch all run after cancel")
    func issueExample() async throws {
        let (p, resolver) = Promise<Int>.pending()
        defer { withExtendedLifetime(resolver) {} }
        let names = ["hideSpinner", "completion", "log"]
        let log = ObserverLog(names)
        p.then { $0 + 1 }.ensure { log.record("hideSpinner", nil) }
        p.whenComplete { (result: Result<Int, any Error>) in
            if case .failure(let error) = result { log.record("completion", error) }
        }
        p.catch { error in log.record("log", error) }
        p.cancel()
        try await log.wait(for: names)
        #expect(log.calls.current == ["hideSpinner": 1, "completion": 1, "log": 1])
    }

    @Test("R5b a cancelled promise stays cancelled whatever its error handler returns")
    func staysCancelled() async throws {
        let (p, resolver) = Promise<Int>.pending()
        defer { withExtendedLifetime(resolver) {} }
        let ran = Countdown(1)
        let recovered = p.recover { _ in ran.tick(); return 5 }
        p.cancel()
        try await ran.wait()
        guard case .failure(let error) = await recovered.outcome else {
            Issue.record("a cancelled promise was fulfilled by its handler")
            return
        }
        #expect((error as? PromiseError)?.code == .cancelled)
        #expect(!p.isPending)
    }

    @Test("R5b cancelling a branch lets its own error observers run and never reaches a parent others wait on")
    func branchOnly() async throws {
        let (p, resolver) = Promise<Int>.pending()
        let names = ["branch.catch", "branch.ensure"]
        let log = ObserverLog(names)
        let branch = p.then { $0 }
        let other = p.then { $0 }
        branch.catch { error in log.record("branch.catch", error) }
        branch.ensure { log.record("branch.ensure", nil) }
        branch.cancel()
        try await log.wait(for: names)
        #expect(p.isPending)
        resolver.fulfill(1)
        #expect(try await p.value == 1)
        #expect(try await other.value == 1)
    }

    @Test("R5b value-only handlers are skipped, as for any rejection")
    func valueHandlersSkipped() async throws {
        let (p, resolver) = Promise<Int>.pending()
        let ran = Locked(0)
        let child = p.then { value -> Int in ran.increment(); return value }
        let observed = Countdown(1)
        child.catch { _ in observed.tick() }
        p.cancel()
        resolver.fulfill(1)
        try await observed.wait()
        _ = await child.outcome
        #expect(ran.current == 0)
    }

    @Test("R5b cancel racing registration and settlement from several threads, on every context: every observer runs exactly once",
          arguments: Array(0..<ExactlyOnceTests.contexts.count))
    func randomizedRace(contextIndex: Int) async throws {
        let context = ExactlyOnceTests.contexts[contextIndex]
        // Observers that see every outcome must run exactly once whatever wins; `catch` and
        // `recover` at most once, and exactly once when the cancel won.
        let always = ["then.ensure", "tap", "ensureThen", "whenComplete"]
        for round in 0..<150 {
            let seed = UInt64(contextIndex) &* 10_000 &+ UInt64(round)
            var random = SplitMix64(state: seed)
            let pauses = (0..<3).map { _ in Int.random(in: 0..<200, using: &random) }
            let (root, resolver) = Promise<Int>.pending()
            let log = ObserverLog(Self.kinds)
            let started = Countdown(3)
            DispatchQueue.global().async {
                for _ in 0..<pauses[0] { sched_yield() }
                Self.observeEveryKind(of: root, on: context, log: log)
                started.tick()
            }
            DispatchQueue.global().async {
                for _ in 0..<pauses[1] { sched_yield() }
                root.cancel()
                started.tick()
            }
            DispatchQueue.global().async {
                for _ in 0..<pauses[2] { sched_yield() }
                resolver.fulfill(1)
                started.tick()
            }
            try await started.wait()
            do {
                try await log.wait(for: always)
            } catch {
                Issue.record("an observer never ran (seed \(seed)): \(log.calls.current)")
                return
            }
            if case .failure = await root.outcome {
                // The cancel won: every error observer must see it, even those registered after.
                do {
                    try await log.wait(for: Self.kinds)
                } catch {
                    Issue.record("an error observer missed the cancellation (seed \(seed)): \(log.calls.current)")
                    return
                }
            }
            for kind in Self.kinds {
                #expect(log.count(kind) <= 1, "\(kind) ran \(log.count(kind)) times (seed \(seed))")
            }
            for kind in always { #expect(log.count(kind) == 1, "\(kind) (seed \(seed))") }
        }
    }
}
