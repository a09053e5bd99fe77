import Testing
import ActorPromise

// Every operator that takes a handler, on `Promise<Void>` and `Promise<Int>`, written the way the
// docs write it (no annotations on the closures), from the three places Swift 6 code lives. That
// this file compiles is the test of the matrix; the tests below run each row once.

/// `@MainActor` app code: handlers on `.main` use the model's state directly.
@MainActor
final class MatrixViewModel {
    var title = ""
    var log: [String] = []

    func void(_ done: Promise<Void>) -> [Promise<Void>] {
        [
            done.then(on: .main) { self.log.append("then") },
            done.map(on: .main) { self.log.append("map") },
            done.flatMap(on: .main) { self.log.append("flatMap"); return Promise() },
            done.catch(on: .main) { error in self.title = "\(error)" },
            done.catch(on: .main, policy: .allErrorsExceptCancellation) { error in self.title = "\(error)" },
            done.recover(on: .main) { error in self.title = "\(error)" },
            done.ensure(on: .main) { self.log.append("ensure") },
            done.ensureThen(on: .main) { self.log.append("ensureThen"); return Promise() },
            done.tap(on: .main) { _ in self.log.append("tap") },
        ]
    }

    func int(_ count: Promise<Int>) -> [Promise<Void>] {
        count.whenComplete(on: .main) { result in self.log.append("whenComplete \(result)") }
        return [
            count.then(on: .main) { value in self.log.append("then \(value)") },
            count.then(on: .main) { value in value + 1 }.map { _ in },
            count.map(on: .main) { value in self.log.append("map \(value)"); return value }.map { _ in },
            count.flatMap(on: .main) { value in Promise(value: value + self.log.count) }.map { _ in },
            count.catch(on: .main) { error in self.title = "\(error)" },
            count.recover(on: .main) { error in self.title = "\(error)"; return 0 }.map { _ in },
            count.recover(on: .main, policy: .allErrorsExceptCancellation) { _ in self.log.count }.map { _ in },
            count.ensure(on: .main) { self.log.append("ensure") }.map { _ in },
            count.ensureThen(on: .main) { self.log.append("ensureThen"); return Promise() }.map { _ in },
            count.tap(on: .main) { _ in self.log.append("tap") }.map { _ in },
        ]
    }

    /// `SerialQueue.async` takes its closure as `consuming`: still written as usual.
    func hop(on queue: SerialQueue) -> Promise<Void> {
        let (hopped, resolver) = Promise<Void>.pending()
        queue.async { resolver.fulfill() }
        return hopped.then(on: .main) { self.log.append("hopped") }
    }
}

/// An actor: handlers on a context use the actor's `nonisolated` parts through `self`, and
/// `then(isolatedTo: self)` reaches its state.
actor MatrixStore {
    nonisolated let name = "store"
    var entries: [String] = []

    nonisolated func label(_ text: String) -> String { "\(name): \(text)" }

    func void(_ done: Promise<Void>) -> [Promise<Void>] {
        [
            done.then { _ = self.label("then") },
            done.map { _ = self.label("map") },
            done.flatMap { _ = self.label("flatMap"); return Promise() },
            done.catch { error in _ = self.label("\(error)") },
            done.catch(policy: .allErrorsExceptCancellation) { error in _ = self.label("\(error)") },
            done.recover { error in _ = self.label("\(error)") },
            done.ensure { _ = self.label("ensure") },
            done.ensureThen { _ = self.label("ensureThen"); return Promise() },
            done.tap { _ in _ = self.label("tap") },
            done.then(isolatedTo: self) { store, _ in store.entries.append("isolated") },
        ]
    }

    func int(_ count: Promise<Int>) -> [Promise<Void>] {
        count.whenComplete { result in _ = self.label("\(result)") }
        return [
            count.then { value in _ = self.label("\(value)") },
            count.then { value in value + 1 }.map { _ in },
            count.map { value in self.name.count + value }.map { _ in },
            count.flatMap { value in Promise(value: value) }.map { _ in },
            count.catch { error in _ = self.label("\(error)") },
            count.recover { _ in self.name.count }.map { _ in },
            count.ensure { _ = self.label("ensure") }.map { _ in },
            count.ensureThen { _ = self.label("ensureThen"); return Promise() }.map { _ in },
            count.tap { _ in _ = self.label("tap") }.map { _ in },
            count.then(isolatedTo: self) { store, value in store.entries.append("\(value)") },
        ]
    }

    func hop(on queue: SerialQueue) -> Promise<Void> {
        let (hopped, resolver) = Promise<Void>.pending()
        queue.async { _ = self.label("hop"); resolver.fulfill() }
        return hopped
    }
}

/// Nonisolated server or command-line code.
func matrixNonisolated(_ done: Promise<Void>, _ count: Promise<Int>, log: Locked<[String]>) -> [Promise<Void>] {
    count.whenComplete { result in log.withLock { $0.append("\(result)") } }
    return [
        done.then { log.withLock { $0.append("then") } },
        done.map(on: .inline) { log.withLock { $0.append("map") } },
        done.flatMap { Promise() },
        done.catch { error in log.withLock { $0.append("\(error)") } },
        done.recover { _ in },
        done.ensure { log.withLock { $0.append("ensure") } },
        done.ensureThen { Promise() },
        done.tap { _ in },
        count.then { value in log.withLock { $0.append("\(value)") } },
        count.then { value in value + 1 }.map { _ in },
        count.map { $0 * 2 }.map { _ in },
        count.flatMap { Promise(value: $0) }.map { _ in },
        count.catch { error in log.withLock { $0.append("\(error)") } },
        count.catch(policy: .allErrorsExceptCancellation) { _ in },
        count.recover(policy: .allErrorsExceptCancellation) { _ in 0 }.map { _ in },
        count.recover { _ in 0 }.map { _ in },
        count.ensure {}.map { _ in },
        count.ensureThen { Promise() }.map { _ in },
        count.tap { _ in }.map { _ in },
    ]
}

func matrixNonisolatedHop(on queue: SerialQueue, log: Locked<[String]>) -> Promise<Void> {
    let (hopped, resolver) = Promise<Void>.pending()
    queue.async { log.withLock { $0.append("hop") }; resolver.fulfill() }
    return hopped
}

@Suite("B6 R9 every handler operator compiles unannotated on Promise<Void> and Promise<Int>")
struct OperatorMatrixTests {
    @Test("B6 from a @MainActor view model, handlers on .main")
    @MainActor
    func mainActor() async throws {
        let model = MatrixViewModel()
        for promise in model.void(Promise()) + model.int(Promise(value: 1)) { try await promise.value }
        try await model.hop(on: SerialQueue(label: "matrix.main")).value
        #expect(model.log.contains("flatMap") && model.log.contains("then 1") && model.log.contains("ensureThen"))
        #expect(model.log.last == "hopped")
        #expect(model.title.isEmpty, "no handler of a fulfilled promise saw an error")
    }

    @Test("B6 from an actor capturing self")
    func actor() async throws {
        let store = MatrixStore()
        for promise in await store.void(Promise()) + store.int(Promise(value: 2)) { try await promise.value }
        try await store.hop(on: SerialQueue(label: "matrix.actor")).value
        #expect(await store.entries.sorted() == ["2", "isolated"])
    }

    @Test("B6 from nonisolated code")
    func nonisolated() async throws {
        let log = Locked<[String]>([])
        for promise in matrixNonisolated(Promise(), Promise(value: 3), log: log) { try await promise.value }
        try await matrixNonisolatedHop(on: SerialQueue(label: "matrix.nonisolated"), log: log).value
        #expect(log.current.contains("then") && log.current.contains("3") && log.current.contains("ensure"))
        #expect(log.current.last == "hop")
    }
}
