import Testing
import ActorPromise

/// The main-actor forms of the closures that start and stop work — `Promise.lazy(on: .main)`,
/// `Promise.retry(on: .main)`, `Retryable(on: .main)` and `resolver.onCancel(on: .main)` — written
/// unannotated in a view model, touching its state (R6, R9, R10, R11).
@Suite("R9 main-actor forms of lazy bodies, retried attempts and cancel handlers")
@MainActor
struct MainActorBodiesTests {
    @MainActor final class Model {
        var starts = 0
        var attempts: [Int] = []
        var stopped = false
        var resolver: Resolver<Int>?

        func lazyCount() -> Promise<Int> {
            Promise.lazy(on: .main) { resolver in
                self.starts += 1
                resolver.fulfill(self.starts * 10)
            }
        }

        func retried(failUntil success: Int) -> Promise<Int> {
            Promise.retry(attempts: 4, on: .main) { attempt in
                self.attempts.append(attempt)
                return attempt < success ? Promise(error: TestError(id: attempt)) : Promise(value: attempt)
            }
        }

        func stoppable() -> Promise<Int> {
            Promise { resolver in
                resolver.onCancel(on: .main) { self.stopped = true }
                self.resolver = resolver
            }
        }
    }

    @Test("R10 a main-actor lazy body runs once, on the main actor, when first observed")
    func lazyBody() async throws {
        let model = Model()
        let promise = model.lazyCount()
        #expect(model.starts == 0)
        #expect(try await promise.value == 10)
        #expect(try await promise.value == 10)
        #expect(model.starts == 1)
    }

    @Test("R10 a main-actor lazy body that throws rejects its promise")
    func lazyBodyThrows() async {
        let promise = Promise<Int>.lazy(on: .main) { _ in throw TestError(id: 3) }
        await #expect(throws: TestError(id: 3)) { try await promise.value }
    }

    @Test("R11 each attempt starts on the main actor; the first success wins")
    func retriedAttempts() async throws {
        let model = Model()
        #expect(try await model.retried(failUntil: 3).value == 3)
        #expect(model.attempts == [1, 2, 3])
        let gaveUp = model.retried(failUntil: 9)
        await #expect(throws: TestError(id: 4)) { try await gaveUp.value }
    }

    @Test("R11 Retryable(on: .main) runs its body on the main actor per run")
    func retryable() async throws {
        let model = Model()
        let work = Retryable<Int>(on: .main) { attempt in
            model.attempts.append(attempt)
            return Promise(value: model.attempts.count)
        }
        #expect(try await work.run().value == 1)
        #expect(try await work.run().value == 2)
    }

    @Test("R6 a main-actor cancel handler runs on the main actor after a cancel of the pending promise, and never otherwise")
    func cancelHandler() async throws {
        let model = Model()
        let promise = model.stoppable()
        promise.cancel()
        // Main-context jobs run in submission order: this one runs after the cancel handler's.
        try await Promise<Void>().then(on: .main) {}.value
        #expect(model.stopped)

        let other = Model()
        let settled = other.stoppable()
        other.resolver?.fulfill(1)
        settled.cancel()
        try await Promise<Void>().then(on: .main) {}.value
        #expect(!other.stopped)
    }
}
