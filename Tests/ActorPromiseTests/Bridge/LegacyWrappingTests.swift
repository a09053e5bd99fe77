import Testing
import Foundation
import ActorPromise
import LegacySDK

struct FeedError: Error, Equatable { var code = 1 }

/// Wrapping an SDK that calls back on another thread, from main-actor code, from an actor and from
/// nonisolated code, with the completion adapters the docs show (B4, B8). The closure the adapter
/// takes is `@Sendable`, so it is isolated to no actor even when written in main-actor code: the
/// SDK may call it on any thread. (The same closure written straight into the SDK's parameter from
/// main-actor code would be main-actor code, and the process would stop when the SDK calls it on
/// another thread: the trap these adapters avoid.)
@Suite("B8 wrapping a Swift 5 SDK that calls back on another thread")
struct LegacyWrappingTests {
    @MainActor final class ViewModel {
        let client = Swift5Client()
        var title = ""

        func text(_ path: String) -> Promise<String> {
            Promise { resolver in
                client.load(path, completion: resolver.completion { data, error in
                    if let error { throw error }
                    return String(decoding: data ?? Data(), as: UTF8.self)
                })
            }
        }

        func count(_ path: String) -> Promise<Int> {
            Promise { resolver in client.count(path, completion: resolver.completion()) }
        }

        func load() async throws {
            title = try await text("hello").value + " \(try await count("four").value)"
        }
    }

    actor Cache {
        let client = Swift5Client()
        var stored: [String: String] = [:]

        func text(_ path: String) async throws -> String {
            let text = try await Promise<String> { resolver in
                client.load(path, completion: resolver.completion { data, _ in String(decoding: data!, as: UTF8.self) })
            }.value
            stored[path] = text
            return text
        }
    }

    @Test("B8 a @MainActor view model wraps the SDK with resolver.completion { … } and completion()")
    @MainActor
    func mainActorViewModel() async throws {
        let model = ViewModel()
        try await model.load()
        #expect(model.title == "hello 4")
    }

    @Test("B8 an actor wraps the SDK")
    func actorWraps() async throws {
        let cache = Cache()
        #expect(try await cache.text("cached") == "cached")
        #expect(await cache.stored["cached"] == "cached")
    }

    @Test("B8 nonisolated code wraps the SDK; a thrown error rejects")
    func nonisolatedWraps() async throws {
        let client = Swift5Client()
        let failing = Promise<Int> { resolver in
            client.load("x", completion: resolver.completion { _, _ in throw FeedError(code: 7) })
        }
        await #expect(throws: FeedError(code: 7)) { try await failing.value }
    }

    /// An API with a typed error in its callback.
    static func feed(_ completion: @escaping @Sendable (Result<Int, FeedError>) -> Void) {
        DispatchQueue.global().async { completion(.failure(FeedError(code: 3))) }
    }

    @Test("B4 completion() infers a typed error from the API's parameter")
    func typedErrorInferred() async throws {
        let promise = Promise<Int> { resolver in Self.feed(resolver.completion()) }
        await #expect(throws: FeedError(code: 3)) { try await promise.value }
        let untyped = Promise<Int>.pending()
        let handler = untyped.resolver.completion()   // nothing to infer from: any Error
        handler(.success(5))
        #expect(try await untyped.promise.value == 5)
    }
}
