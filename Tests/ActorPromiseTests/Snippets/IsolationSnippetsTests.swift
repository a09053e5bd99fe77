import Testing
import Dispatch
import ActorPromise

// User snippets in Swift 6 mode, written where Swift 6 code lives (B6, R9). That this file
// compiles is half the test; the tests below run each snippet once.

/// A callback API of the usual shape, called back on a queue of its own.
final class LegacyClient: Sendable {
    func fetch(_ id: Int, completion: @escaping @Sendable (Result<String, any Error>) -> Void) {
        DispatchQueue.global().async { completion(.success("item \(id)")) }
    }
}

@MainActor
final class MainActorSnippets {
    let client = LegacyClient()
    var shown: [String] = []

    func withCompletionUsingSelf() async throws -> String {
        try await withCompletion { (resolver: Resolver<String>) in
            self.shown.append("started")                       // main-actor state, no hop
            self.client.fetch(1, completion: resolver.completion())
        }
    }

    func asyncBodyUsingSelf() -> Promise<Int> {
        Promise { self.shown.count }                          // inherits the main actor
    }

    func resolverBodyUsingSelf() -> Promise<String> {
        Promise { resolver in
            self.shown.append("body")
            self.client.fetch(2, completion: resolver.completion())
        }
    }

    func handlers(_ promise: Promise<String>) -> Promise<Void> {
        promise.then(on: .main) { value in self.shown.append(value) }
    }
}

actor ActorSnippets {
    let client = LegacyClient()
    var fetched: [String] = []

    func withCompletionUsingSelf() async throws -> String {
        try await withCompletion { (resolver: Resolver<String>) in
            self.fetched.append("started")                     // actor state, inside the actor
            self.client.fetch(3, completion: resolver.completion())
        }
    }

    func asyncBodyUsingSelf() -> Promise<Int> {
        Promise { self.fetched.count }                         // inherits the actor
    }

    func isolatedHandler(_ promise: Promise<String>) -> Promise<Int> {
        promise.then(isolatedTo: self) { actor, value in
            actor.fetched.append(value)
            return actor.fetched.count
        }
    }
}

func nonisolatedSnippets(_ client: LegacyClient) async throws -> [String] {
    let first = try await withCompletion { (resolver: Resolver<String>) in client.fetch(4, completion: resolver.completion()) }
    let second = try await Promise<String> { try await Task.sleep(for: .zero); return "async" }.value
    let third = try await Promise<String> { resolver in client.fetch(5, completion: resolver.completion()) }.value
    return [first, second, third]
}

@Suite("B6 Bridge entry points compile and run from any isolation")
struct IsolationSnippetsTests {
    @Test("B6 from a @MainActor class: withCompletion, Promise { async }, Promise { resolver }, then(on: .main)")
    @MainActor
    func mainActor() async throws {
        let model = MainActorSnippets()
        #expect(try await model.withCompletionUsingSelf() == "item 1")
        #expect(try await model.asyncBodyUsingSelf().value == 1)
        let fetched = model.resolverBodyUsingSelf()
        try await model.handlers(fetched).value
        #expect(model.shown == ["started", "body", "item 2"])
    }

    @Test("B6 from an actor whose closures use self")
    func actor() async throws {
        let store = ActorSnippets()
        #expect(try await store.withCompletionUsingSelf() == "item 3")
        #expect(try await store.asyncBodyUsingSelf().value == 1)
        #expect(try await store.isolatedHandler(Promise(value: "x")).value == 2)
    }

    @Test("B6 from nonisolated code")
    func nonisolated() async throws {
        #expect(try await nonisolatedSnippets(LegacyClient()) == ["item 4", "async", "item 5"])
    }
}
