import Testing
import ActorPromise

/// `Promise { compute() }`: a body that neither awaits nor takes a resolver runs at once and
/// settles the promise with what it returns or throws.
@Suite("R1 the synchronous-body initializer")
struct SynchronousBodyTests {
    static func compute() -> Int { 41 }

    @Test("R1 a multi-statement body settles the promise before the initializer returns")
    func settledAtOnce() async throws {
        let promise = Promise { let x = Self.compute(); return x + 1 }
        #expect(!promise.isPending)
        #expect(try promise.result?.get() == 42)
        let failing = Promise<Int> { throw TestError(id: 4) }
        await #expect(throws: TestError(id: 4)) { try await failing.value }
    }

    @Test("R1 a body that awaits still runs in a task; one that takes a resolver still gets it")
    func otherForms() async throws {
        @Sendable func later() async -> Int { 7 }
        let awaiting = Promise { await later() }
        let resolved = Promise<Int> { resolver in resolver.fulfill(3) }
        #expect(try await awaiting.value == 7)
        #expect(try await resolved.value == 3)
    }

    @MainActor final class Model {
        var base = 10
        func derived() -> Promise<Int> { Promise { base + 1 } }   // the caller's isolation
    }

    @Test("R1 in main-actor code the body reads the model's state")
    @MainActor
    func mainActorBody() async throws {
        #expect(try await Model().derived().value == 11)
    }
}
