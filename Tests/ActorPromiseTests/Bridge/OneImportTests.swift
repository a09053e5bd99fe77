// This file imports nothing but the library and the test framework, and the test target builds
// with `MemberImportVisibility`: each line below compiles only if `import ActorPromise` alone
// gives it (B0).
import Testing
import ActorPromise

@Suite("B0 one import gives the whole API")
struct OneImportTests {
    /// A callback API as a user has it.
    static func legacyFetch(_ id: Int, completion: @escaping @Sendable (Result<Int, any Error>) -> Void) {
        SerialQueue(label: "legacy").async { completion(.success(id * 10)) }
    }

    @Test("B0 promises, contexts, await, completion wrapping and callbacks from one import")
    func everythingFromOneImport() async throws {
        let queue = SerialQueue(label: "one-import")
        let (promise, resolver) = Promise<Int>.pending()
        let doubled = promise.then(on: queue) { $0 * 2 }.recover { _ in 0 }
        resolver.fulfill(21)
        #expect(try await doubled.value == 42)

        let wrapped: Int = try await withCompletion { resolver in Self.legacyFetch(4, completion: resolver.completion()) }
        #expect(wrapped == 40)

        let fromTask = Promise { try await Promise(value: 5).value + 1 }
        #expect(try await fromTask.value == 6)

        let called = Promise<Int>.pending()
        doubled.whenComplete(on: .inline) { (result: Result<Int, any Error>) in called.resolver.resolve(result) }
        #expect(try await called.promise.value == 42)

        let contexts: [any ExecutionContext] = [
            .global, .inline, ConcurrentQueue(label: "c"), OperationExecutor(label: "o"), RunLoopThread(name: "r"),
        ]
        for context in contexts { #expect(try await Promise(value: 1).then(on: context) { $0 + 1 }.value == 2) }
        #expect(try await Promise.values(of: [Promise(value: 1), Promise(value: 2)]) == [1, 2])
    }
}
