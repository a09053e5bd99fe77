import Testing
import ActorPromise

/// A search screen: each query replaces the load before it. Errors are shown to the user, a
/// replaced load is not an error.
@MainActor
final class SearchModel {
    var results: [String] = []
    var errorText: String?
    private var current: Promise<Void>?

    func search(_ load: Promise<[String]>) -> Promise<Void> {
        current?.cancel()
        let shown = load
            .then(on: .main) { items in self.results = items }
            .catch(on: .main, policy: .allErrorsExceptCancellation) { error in self.errorText = "\(error)" }
        current = shown
        return shown
    }
}

actor SearchStore {
    var errors: [String] = []
    func record(_ load: Promise<Int>) -> Promise<Int> {
        load.recover(policy: .allErrorsExceptCancellation) { _ in -1 }
    }
}

@Suite("R5b CatchPolicy: error handlers may skip cancellation")
struct CatchPolicyTests {
    @Test("R5b a @MainActor view model shows a failure, but not the cancellation of a replaced load")
    @MainActor
    func viewModelSkipsReplacedLoad() async throws {
        let model = SearchModel()
        let (first, _keep) = Promise<[String]>.pending()
        let replaced = model.search(first)
        let (second, secondResolver) = Promise<[String]>.pending()
        let shown = model.search(second)
        await #expect { try await replaced.value } throws: { $0.isCancellation }
        #expect(model.errorText == nil, "a replaced load is no error to show")
        secondResolver.reject(TestError(id: 7))
        try await shown.value
        #expect(model.errorText == "\(TestError(id: 7))")
        _ = _keep
    }

    @Test("R5b the default policy sees a cancellation that reaches catch and recover")
    func defaultSeesCancellation() async throws {
        let (other, otherResolver) = Promise<Int>.pending()
        let recovered = other.recover(on: .inline) { error in error.isCancellation ? 0 : 1 }
        let caught = Locked(false)
        let ended = other.catch(on: .inline) { error in caught.withLock { $0 = error.isCancellation } }
        otherResolver.resolve(with: Promise(error: PromiseError.cancelled()))
        #expect(try await recovered.value == 0)
        try await ended.value
        #expect(caught.current)
    }

    @Test("R5b .allErrorsExceptCancellation passes cancellation on and handles other errors, from an actor")
    func actorRecover() async throws {
        let store = SearchStore()
        let (failing, failingResolver) = Promise<Int>.pending()
        let recovered = await store.record(failing)
        failingResolver.reject(TestError())
        #expect(try await recovered.value == -1)
        let skipped = await store.record(Promise(error: PromiseError.cancelled(reason: nil)))
        await #expect { try await skipped.value } throws: { $0.isCancellation }
    }
}
