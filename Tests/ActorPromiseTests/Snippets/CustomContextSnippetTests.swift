import Testing
import Dispatch
import ActorPromise

// The "Your own context" snippet of the ExecutionContexts article, as written: a context a user
// writes is one method, and handlers and work of one's own both run on it.

final class LabelledQueue: ExecutionContext {
    private let queue = DispatchQueue(label: "images")

    func submit(_ item: any Runnable) {
        queue.async { item.run() }
    }
}

/// A context that drops everything it is given, as a stopped context would.
final class DroppingContext: ExecutionContext {
    func submit(_ item: any Runnable) { item.discard() }
}

@Suite("A context written by a user")
struct CustomContextSnippetTests {
    /// The abandonments these tests provoke are recorded, not printed as warnings.
    init() { AbandonmentLog.install() }

    @Test("handlers and work of one's own run on a one-method context; a released context's queued handlers still run")
    func labelledQueue() async throws {
        var images: LabelledQueue? = LabelledQueue()
        let sized = Promise(value: 3).then(on: images!) { $0 * 2 }
        let ran = Promise<Void>.pending()
        images!.submit(ClosureWorkItem { ran.resolver.fulfill() })
        images = nil
        #expect(try await sized.value == 6)
        try await ran.promise.value
    }

    @Test("a handler the context drops rejects its promise as abandoned instead of waiting forever")
    func droppedHandler() async {
        let promise = Promise(value: 1).then(on: DroppingContext()) { $0 + 1 }
        await #expect(throws: PromiseError.self) { try await promise.value }
        guard case .failure(let error as PromiseError) = await promise.outcome else { return }
        #expect(error.code == .abandoned)
    }
}
