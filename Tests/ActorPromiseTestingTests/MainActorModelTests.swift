import Testing
import Dispatch
import ActorPromise
import ActorPromiseTesting

/// Where a profile's name comes from.
protocol ProfileService: Sendable {
    func fetchName() -> Promise<String>
}

/// A server that answers after `delay` — on the clock of whoever runs it (virtual in a test
/// runtime).
struct SlowServer: ProfileService {
    let delay: Duration
    func fetchName() -> Promise<String> { Promise<Void>.after(delay).then { "Ada" } }
}

/// An SDK that calls back from a queue of its own after a few real milliseconds.
struct CallbackSDK: ProfileService {
    let queue = DispatchQueue(label: "callback-sdk")
    func fetchName() -> Promise<String> {
        Promise { resolver in
            let completion = resolver.completion()
            queue.asyncAfter(deadline: .now() + .milliseconds(20)) { completion(.success("Ada")) }
        }
    }
}

/// A view model as app code writes it: a `@MainActor` class whose methods start promise work
/// with a timeout and write its properties in `.main` handlers.
@MainActor
final class ProfileModel {
    var title = "loading"
    var loads = 0
    let service: any ProfileService

    init(service: any ProfileService) { self.service = service }

    /// Starts a load; the title says how it ended.
    func load() {
        service.fetchName()
            .timeout(after: .seconds(30))
            .then(on: .main) { name in
                self.loads += 1
                self.title = name
            }
            .catch(on: .main) { error in
                self.title = (error as? PromiseError)?.code == .timedOut ? "timed out" : "failed"
            }
    }

    /// Loads and waits for the outcome, as an async view model method does.
    func refresh() async {
        do {
            title = try await service.fetchName().timeout(after: .seconds(30)).value
        } catch {
            title = (error as? PromiseError)?.code == .timedOut ? "timed out" : "failed"
        }
    }
}

/// The view model tested the way app developers write their tests: async `@MainActor` tests,
/// virtual time, explored orders. No process-wide switch: other tests' main-actor code runs as
/// always meanwhile (this suite is not serialized).
@Suite("PromiseTestRuntime: a @MainActor view model in async tests")
@MainActor
struct MainActorModelTests {
    init() { QuietDiagnostics.install() }

    @Test("load() against a server slower than the timeout: 'timed out' after 30 virtual seconds, set by the .main handler")
    func loadTimesOut() async throws {
        let runtime = PromiseTestRuntime(autoAdvance: true)
        let model = ProfileModel(service: SlowServer(delay: .seconds(60)))
        let started = ContinuousClock.now
        runtime.run { model.load() }
        #expect(model.title == "timed out")
        #expect(runtime.now == .seconds(30))
        #expect(ContinuousClock.now - started < .seconds(5))
    }

    @Test("the async form from the main actor: load() inside an async body, driven until idle after it returns")
    func loadInAsyncBody() async throws {
        let runtime = PromiseTestRuntime(autoAdvance: true)
        let model = ProfileModel(service: SlowServer(delay: .seconds(60)))
        try await runtime.run { () async in
            model.load()
            await Task.yield()
        }
        #expect(model.title == "timed out")
        #expect(runtime.now == .seconds(30))
    }

    @Test("await refresh() against a server faster than the timeout: the name, 5 virtual seconds in")
    func refreshAnswered() async throws {
        let runtime = PromiseTestRuntime(autoAdvance: true)
        let model = ProfileModel(service: SlowServer(delay: .seconds(5)))
        try await runtime.run { await model.refresh() }
        #expect(model.title == "Ada")
        #expect(runtime.now == .seconds(5))
    }

    @Test("await refresh() against an SDK calling back from its own queue: the clock waits for the callback")
    func refreshFromCallback() async throws {
        let runtime = PromiseTestRuntime(autoAdvance: true)
        let model = ProfileModel(service: CallbackSDK())
        try await runtime.run { await model.refresh() }
        #expect(model.title == "Ada")
        #expect(runtime.now == .zero)
    }

    @Test("explored orders: two loads each reach the model once, under every seed")
    func exploredOrders() throws {
        let failure = try PromiseTestRuntime.explore(seeds: 0..<25, autoAdvance: true) { runtime in
            let model = ProfileModel(service: SlowServer(delay: .seconds(1)))
            runtime.run {
                model.load()
                model.load()
            }
            try #require(model.loads == 2)
            try #require(model.title == "Ada")
        }
        #expect(failure == nil, "\(failure.map { "\($0)" } ?? "")")
    }

    @Test("explore finds an order-dependent bug in main-actor code: a stale load overwriting a newer one")
    func exploreFindsStaleWrite() throws {
        /// Replaces the title with whichever load answers last — the bug.
        @MainActor final class SearchModel {
            var title = ""
            func search(_ query: String, delay: Duration) {
                Promise<Void>.after(delay).then { query }.then(on: .main) { self.title = $0 }
            }
        }
        let failure = try PromiseTestRuntime.explore(seeds: 0..<20, autoAdvance: true) { runtime in
            let model = SearchModel()
            runtime.run {
                model.search("old", delay: .seconds(1))
                model.search("new", delay: .seconds(1))
            }
            #expect(model.title == "new")
        }
        let found = try #require(failure)
        #expect(found.messages.first?.contains("title") == true, "\(found.messages)")
    }
}
