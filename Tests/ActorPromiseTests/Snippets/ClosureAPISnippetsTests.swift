import Testing
import Foundation
import ActorPromise
import LegacySDK

/// The closure-taking APIs (completion adapters with a mapping, the body initializer, lazy `map`
/// over sequences and iterators, and their siblings), written unannotated from the three places users
/// write code — main-actor code, an actor method using `self`, nonisolated code — on a
/// `Promise<Void>` as well as a `Promise<Int>`, so that CI compiles each form.
@Suite("B6 closure-taking APIs from every isolation")
struct ClosureAPISnippetsTests {
    @MainActor final class Model {
        let client = Swift5Client()
        var items = [1, 2, 3]
        var saved = false

        func run() async throws -> [Int] {
            // The mapping runs on the SDK's thread, isolated to no actor: it takes copies, not `self`.
            let offset = items.count * 0
            let loaded = Promise<Int> { resolver in
                client.count("four", completion: resolver.completion { result in try result.get() + offset })
            }
            let done = Promise<Void> { resolver in
                client.load("x", completion: resolver.completion { _, error in if let error { throw error } })
            }
            try await done.value
            let sum = Promise { self.items.reduce(0, +) }
            let mapped = Promise<Int>.map(items, maxConcurrency: 2) { Promise(value: $0) }
            let voids = Promise<Void>.map(items.makeIterator(), maxConcurrency: 2) { _ in Promise<Void>() }
            _ = try await voids.value
            return [try await loaded.value, try await sum.value] + (try await mapped.value)
        }
    }

    actor Store {
        let client = Swift5Client()
        var ids = [4, 5]

        func run() async throws -> [Int] {
            let offset = ids.count * 0
            let count = try await Promise<Int> { resolver in
                client.count("abc", completion: resolver.completion { result in try result.get() + offset })
            }.value
            let first = Promise { self.ids[0] }
            let lazy = Promise<Int>.map(ids.lazy.filter { $0 > 0 }, maxConcurrency: 2) { Promise(value: $0) }
            return [count, try await first.value] + (try await lazy.value)
        }
    }

    static func nonisolated() async throws -> [Int] {
        let client = Swift5Client()
        let done = Promise<Void> { resolver in client.load("y", completion: resolver.completion { _, _ in }) }
        try await done.value
        let range = Promise<Int>.map(1...3, maxConcurrency: 2) { Promise(value: $0) }
        return try await range.value + [try await Promise { 7 }.value]
    }

    @Test("B6 main-actor code, an actor and nonisolated code")
    @MainActor
    func everyIsolation() async throws {
        #expect(try await Model().run() == [4, 6, 1, 2, 3])
        #expect(try await Store().run() == [3, 4, 4, 5])
        #expect(try await Self.nonisolated() == [1, 2, 3, 7])
    }
}
