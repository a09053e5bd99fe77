import Testing
import Synchronization
import ActorPromise
import ActorPromiseTesting

/// The scenarios the test runtime was made for, written as its users write them: a timeout over a
/// retry with back-off, an order-dependent bug found by exploring seeds, a stuck promise explained,
/// and async code whose awaits and cancellations follow the runtime's order.
@Suite("PromiseTestRuntime scenarios")
struct RuntimeScenarioTests {
    init() { QuietDiagnostics.install() }

    /// A request that fails `failures` times, then answers 42 — after a delay, on the pool.
    final class Flaky: Sendable {
        let calls = Mutex(0)
        let failures: Int
        init(failures: Int) { self.failures = failures }

        func request() -> Promise<Int> {
            let call = calls.withLock { calls in
                calls += 1
                return calls
            }
            return Promise(value: call).delay(.seconds(1)).then { call in
                guard call > self.failures else { throw PromiseError(.timedOut) }
                return 42
            }
        }
    }

    @Test("a 30-second timeout over a retry with back-off: the same value 1,000 times in a row, in parallel with its twins", arguments: 0..<4)
    func timeoutOverRetry(twin: Int) throws {
        for _ in 0..<1_000 {
            let flaky = Flaky(failures: 2)
            let runtime = PromiseTestRuntime(seed: 0, autoAdvance: true)
            let value = try runtime.run {
                Promise<Int>.retry(attempts: 5, delay: .fixed(.seconds(10))) { _ in flaky.request() }
                    .timeout(after: .seconds(30))
            }
            #expect(value == 42)
            #expect(flaky.calls.withLock { $0 } == 3)
            #expect(runtime.now == .seconds(23))   // three 1-second requests, two 10-second pauses
        }
    }

    @Test("a seeded order replays identically: the same jobs in the same order")
    func seededReplay() throws {
        func order(_ seed: UInt64) throws -> [String] {
            let runtime = PromiseTestRuntime(seed: seed, autoAdvance: true)
            let queue = SerialQueue(label: "replay")
            _ = try runtime.run {
                Promise.all((0..<6).map { index in
                    Promise(value: index).delay(.milliseconds(index % 3)).then(on: queue) { $0 * 2 }.then { $0 + 1 }
                })
            }
            return runtime.order
        }
        for seed in UInt64(0)..<20 {
            let first = try order(seed)
            #expect(!first.isEmpty)
            #expect(try order(seed) == first)
        }
    }

    /// Two accounts, and a transfer that reads a balance in one job and writes it in another: an
    /// interleaving of two transfers loses money. The bug `explore` must find.
    final class Bank: Sendable {
        let balances = Mutex([100, 0])

        func transfer(_ amount: Int) -> Promise<Void> {
            Promise(value: ())
                .then { self.balances.withLock { $0 } }                       // read
                .then { read in self.balances.withLock { $0 = [read[0] - amount, read[1] + amount] } }  // write
        }
    }

    @Test("explore finds the interleaving that loses money, within 1,000 seeds, and its seed replays it")
    func exploreFindsLostUpdate() throws {
        struct LostMoney: Error { let balances: [Int] }
        func scenario(_ runtime: PromiseTestRuntime) throws {
            let bank = Bank()
            _ = try runtime.run { Promise.all([bank.transfer(10), bank.transfer(20)]) }
            let balances = bank.balances.withLock { $0 }
            if balances != [70, 30] { throw LostMoney(balances: balances) }
        }
        let failure = try #require(try PromiseTestRuntime.explore(seeds: 0..<1_000, scenario))
        #expect(failure.error is LostMoney)
        #expect(!failure.order.isEmpty)
        #expect(throws: LostMoney.self) { try scenario(PromiseTestRuntime(seed: failure.seed)) }
        // The loss depends on the order: some seeds keep the money.
        #expect((0..<1_000).contains { seed in (try? scenario(PromiseTestRuntime(seed: UInt64(seed)))) != nil })
    }

    @Test("run with a promise that can never settle throws at once; the message names it and the resolver nobody uses")
    func stuckPromiseExplained() {
        let runtime = PromiseTestRuntime(autoAdvance: true)
        let kept = Mutex<Resolver<Int>?>(nil)
        do {
            _ = try runtime.run {
                let (never, resolver) = Promise<Int>.pending()
                kept.withLock { $0 = resolver }     // held, never used
                return never.then { $0 + 1 }
            }
            Issue.record("a promise nobody settles was returned")
        } catch let stuck as StuckRun {
            #if DEBUG
            #expect(stuck.pending.count == 2)
            let message = "\(stuck)"
            #expect(message.contains("RuntimeScenarioTests.swift"))
            #expect(message.contains("waits for its resolver"))
            #expect(message.contains("waits for its parent"))
            #endif
        } catch {
            Issue.record("threw \(error)")
        }
    }

    /// A loader as a server or a non-UI model writes it.
    struct Loader: Sendable {
        let flaky: Flaky
        func load() async throws -> Int {
            try await Promise<Int>.retry(attempts: 3, delay: .fixed(.seconds(5))) { _ in flaky.request() }.value
        }
    }

    @Test("the async form: a loader's retries and awaits run in the runtime, in virtual time")
    func asyncLoader() async throws {
        let runtime = PromiseTestRuntime(autoAdvance: true)
        let value = try await runtime.run { try await Loader(flaky: Flaky(failures: 1)).load() }
        #expect(value == 42)
        #expect(runtime.now == .seconds(7))
        #expect(runtime.runUntilIdle().isEmpty)
    }

    @Test("the async form: cancelling a child task that awaits a promise cancels that await, in the runtime's order")
    func asyncCancellation() async throws {
        let runtime = PromiseTestRuntime()
        let (never, resolver) = Promise<Int>.pending()
        let outcome = try await runtime.run {
            await withThrowingTaskGroup(of: Int.self) { group in
                group.addTask { try await never.value }
                group.cancelAll()
                do {
                    _ = try await group.next()
                    return "returned"
                } catch {
                    return error.isCancellation ? "cancelled" : "\(error)"
                }
            }
        }
        #expect(outcome == "cancelled")
        _ = resolver
    }
}
