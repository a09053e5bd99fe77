import ActorPromise
import ActorPromiseTesting
import Dispatch
import Synchronization
import Testing

/// The examples of the *Testing code that uses promises* article (and, above, the README's), as
/// they show them (nested in this
/// suite only so that their names stay theirs): if one stops compiling or passing, the article is
/// wrong.
/// The README's example of the test runtime, as it shows it.
func slowRequest() -> Promise<Int> { Promise<Void>.after(.seconds(1)).then { 42 } }

@Test func readmeTimeoutOverRetry() throws {
    let runtime = PromiseTestRuntime(autoAdvance: true)   // the clock jumps whenever nothing can run
    let value = try runtime.run {
        Promise<Int>.retry(attempts: 5, delay: .fixed(.seconds(10))) { _ in slowRequest() }
            .timeout(after: .seconds(30))
    }
    #expect(value == 42)       // 1 virtual second, in about a millisecond
}

@Suite("The Testing article's examples")
struct TestingArticleExamples {
    init() { QuietDiagnostics.install() }

    final class FlakyServer: Sendable {
        let calls = Mutex(0)

        func request() -> Promise<Int> {
            let call = calls.withLock { $0 += 1; return $0 }
            return Promise<Void>.after(.seconds(1)).then {
                guard call > 2 else { throw PromiseError(.timedOut) }
                return 42
            }
        }
    }

    @Test func timeoutOverRetry() throws {
        let server = FlakyServer()
        let runtime = PromiseTestRuntime(autoAdvance: true)
        let value = try runtime.run {                       // drives everything until it settles
            Promise<Int>.retry(attempts: 5, delay: .fixed(.seconds(10))) { _ in server.request() }
                .timeout(after: .seconds(30))
        }
        #expect(value == 42)
        #expect(runtime.now == .seconds(23))               // virtual time: no real second passed
    }

    struct ProfileSDK: Sendable {
        let queue = DispatchQueue(label: "sdk")
        func fetchName(_ completion: @escaping @Sendable (Result<String, any Error>) -> Void) {
            queue.asyncAfter(deadline: .now() + .milliseconds(20)) { completion(.success("Ada")) }
        }
    }

    @Test func callbackBeatsTimeout() throws {
        let sdk = ProfileSDK()
        let runtime = PromiseTestRuntime(autoAdvance: true)
        let name = try runtime.run {
            Promise<String> { resolver in sdk.fetchName(resolver.completion()) }
                .timeout(after: .seconds(30))
        }
        #expect(name == "Ada")
        #expect(runtime.now == .zero)
    }

    protocol ProfileService: Sendable {
        func fetchName() -> Promise<String>
    }

    struct SlowServer: ProfileService {
        let delay: Duration
        func fetchName() -> Promise<String> { Promise<Void>.after(delay).then { "Ada" } }
    }

    @MainActor final class ProfileModel {
        var title = "loading"
        let service: any ProfileService
        init(service: any ProfileService) { self.service = service }

        func load() {
            service.fetchName()
                .timeout(after: .seconds(30))
                .then(on: .main) { name in self.title = name }
                .catch(on: .main) { error in
                    self.title = (error as? PromiseError)?.code == .timedOut ? "timed out" : "failed"
                }
        }

        func refresh() async {
            do { title = try await service.fetchName().timeout(after: .seconds(30)).value }
            catch { title = "timed out" }
        }
    }

    @MainActor @Test func slowServerTimesOut() async throws {
        let runtime = PromiseTestRuntime(autoAdvance: true)
        let model = ProfileModel(service: SlowServer(delay: .seconds(60)))
        runtime.run { model.load() }
        #expect(model.title == "timed out")
        #expect(runtime.now == .seconds(30))
    }

    @MainActor @Test func refreshShowsName() async throws {
        let runtime = PromiseTestRuntime(autoAdvance: true)
        let model = ProfileModel(service: SlowServer(delay: .seconds(5)))
        try await runtime.run { await model.refresh() }
        #expect(model.title == "Ada")
    }

    final class Bank: Sendable {
        let balances = Mutex([100, 0])

        /// Reads the balances in one handler and writes them in the next: two transfers can interleave.
        func transfer(_ amount: Int) -> Promise<Void> {
            Promise(value: ())
                .then { self.balances.withLock { $0 } }
                .then { read in self.balances.withLock { $0 = [read[0] - amount, read[1] + amount] } }
        }
    }

    @Test func transfersLoseMoney() throws {
        let failure = try PromiseTestRuntime.explore(seeds: 0..<1_000) { runtime in
            let bank = Bank()
            _ = try runtime.run { Promise.all([bank.transfer(10), bank.transfer(20)]) }
            let balances = bank.balances.withLock { $0 }
            try #require(balances == [70, 30])          // each seed, another interleaving
        }
        let found = try #require(failure)               // this `Bank` has the bug
        print(found)
    }
}
