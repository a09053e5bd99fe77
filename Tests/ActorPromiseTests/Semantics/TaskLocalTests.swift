import Testing
import Foundation
import Dispatch
import ActorPromise

/// A request ID as a server binds it: a task-local that logging reads.
enum Trace {
    @TaskLocal static var id: String?
    @TaskLocal static var span: Int = 0

    /// Registers both keys; idempotent, so every test may call it.
    static func register() {
        PromiseTaskLocals.propagate(Trace.$id)
        PromiseTaskLocals.propagate(Trace.$span)
    }
}

/// Settles through `body` on a thread of its own (not a task) with `Trace.id` bound to
/// `"settler"`, as a callback from a networking library would.
private func onSettlerThread(_ body: @escaping @Sendable () -> Void) {
    Thread { Trace.$id.withValue("settler") { body() } }.start()
}

/// Fires each timer at once, from a thread of its own with other values bound: the retry's
/// back-off then starts the next attempt from a thread that is not the run's, without a task that
/// spins to move a manual clock.
private final class SettlerThreadScheduler: PromiseScheduler {
    private let clock = ManualScheduler()

    func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> ScheduledAction {
        let scheduled = clock.schedule(after: delay, action)
        onSettlerThread { [clock] in clock.advance(by: delay) }
        return scheduled
    }
}

/// A task-local that holds an object, to watch its lifetime.
final class Session: Sendable {
    @TaskLocal static var current: Session?
}

/// The contexts a handler may run on, by name (test arguments must be `Sendable` and printable).
private let contextNames = [
    "inline", "pool", "serial", "concurrent", "operation", "runLoopThread", "main",
    "dispatchSerial", "dispatchConcurrent", "operationQueue",
]

private enum TaskLocalContexts {
    static let serial = SerialQueue(label: "tasklocal.serial")
    static let concurrent = ConcurrentQueue(label: "tasklocal.concurrent")
    static let operation = OperationExecutor(label: "tasklocal.operation", maxConcurrentCount: 2)
    static let loop = RunLoopThread(name: "tasklocal.loop")
    static let dispatch = DispatchQueue(label: "tasklocal.dispatch")
    static let dispatchConcurrent = DispatchQueue(label: "tasklocal.dispatch.concurrent", attributes: .concurrent)
    static let operationQueue = OperationQueue()

    static func named(_ name: String) -> any ExecutionContext {
        switch name {
        case "inline": .inline
        case "pool": .global
        case "serial": serial
        case "concurrent": concurrent
        case "operation": operation
        case "runLoopThread": loop
        case "main": MainContext.main
        case "dispatchSerial": dispatch
        case "dispatchConcurrent": dispatchConcurrent.concurrentContext
        default: operationQueue
        }
    }
}

/// An actor of the default kind: handlers isolated to it run in a task that hops to it.
private actor Ledger {
    var entries: [String?] = []
    func record(_ entry: String?) { entries.append(entry) }
}

@Suite("R15 task-local values travel with handlers")
struct TaskLocalTests {
    init() { Trace.register() }

    @Test("R15 the Semantics article's example logs the request's ID from the pool, a queue and the main actor")
    func articleExample() async throws {
        PromiseTaskLocals.propagate(Request.$id)
        try await show("/users", from: RowStore(), cache: SerialQueue(label: "cache")).value
        #expect(snippetLog.current == ["req-/users: 2 rows", "req-/users: cached", "req-/users: showing 2"])
    }

    @Test("R15 a tracing context shaped like ServiceContext (an optional static task-local) travels too")
    func tracingContext() async throws {
        PromiseTaskLocals.propagate(TracingContext.$current)
        let (promise, resolver) = Promise<Int>.pending()
        let traced = TracingContext.$current.withValue(TracingContext(traceID: "4bf92f35")) {
            promise.then(on: SerialQueue(label: "traced")) { _ in TracingContext.current?.traceID }
        }
        onSettlerThread { resolver.fulfill(1) }
        #expect(try await traced.value == "4bf92f35")
    }

    @Test("R15 a handler sees the values bound where it was registered, on every context", arguments: contextNames)
    func everyContext(_ name: String) async throws {
        let context = TaskLocalContexts.named(name)
        let (promise, resolver) = Promise<Int>.pending()
        let bound = Trace.$id.withValue("registered") {
            Trace.$span.withValue(7) { promise.then(on: context) { _ in "\(Trace.id ?? "nil") \(Trace.span)" } }
        }
        let unbound = promise.then(on: context) { _ in "\(Trace.id ?? "nil") \(Trace.span)" }
        onSettlerThread { resolver.fulfill(1) }
        #expect(try await bound.value == "registered 7")
        #expect(try await unbound.value == "nil 0", "the settling thread's value never reaches a handler registered elsewhere")
    }

    @Test("R15 every operator's handler carries the registration's value, on the pool and inline", arguments: ["pool", "inline"])
    func everyOperator(_ name: String) async throws {
        let context = TaskLocalContexts.named(name)
        let (value, fulfil) = Promise<Int>.pending()
        let (failure, reject) = Promise<Int>.pending()
        let seen = Locked<[String: String?]>([:])
        @Sendable func note(_ operatorName: String) { seen.withLock { $0[operatorName] = Trace.id } }
        let results: [Promise<Void>] = Trace.$id.withValue("registered") {
            [
                value.then(on: context) { _ in note("then") },
                value.map(on: context) { _ in note("map") },
                value.flatMap(on: context) { _ in note("flatMap"); return Promise<Void>(value: ()) },
                value.then(on: context, onFulfilled: { _ in note("then2") }, onRejected: { _ in }),
                value.validate(on: context) { _ in note("validate"); return true }.asVoid(),
                value.tap(on: context) { _ in note("tap") }.asVoid(),
                value.ensure(on: context) { note("ensure") }.asVoid(),
                value.ensureThen(on: context) { note("ensureThen"); return Promise<Void>(value: ()) }.asVoid(),
                failure.catch(on: context) { _ in note("catch") },
                failure.recover(on: context) { _ in note("recover"); return 0 }.asVoid(),
                failure.recover(on: context) { _ in note("recoverPromise"); return Promise(value: 0) }.asVoid(),
            ]
        }
        let completed = Countdown(1)
        Trace.$id.withValue("registered") {
            value.whenComplete(on: context) { (_: Result<Int, any Error>) in note("whenComplete"); completed.tick() }
        }
        onSettlerThread {
            fulfil.fulfill(1)
            reject.reject(TestError())
        }
        for result in results { try await result.value }
        try await completed.wait()
        let names = ["then", "map", "flatMap", "then2", "validate", "tap", "ensure", "ensureThen", "catch", "recover",
                     "recoverPromise", "whenComplete"]
        #expect(seen.current.keys.sorted() == names.sorted())
        for name in names { #expect(seen.current[name] == "registered", "\(name)") }
    }

    @Test("R15 main-actor handlers of a @MainActor view model see the registration's value")
    @MainActor
    func mainActorForms() async throws {
        let (promise, resolver) = Promise<Int>.pending()
        var log: [String?] = []
        let done = Trace.$id.withValue("view-model") {
            promise
                .then(on: .main) { _ in log.append(Trace.id) }
                .tap(on: .main) { _ in log.append(Trace.id) }
                .ensure(on: .main) { log.append(Trace.id) }
        }
        onSettlerThread { resolver.fulfill(1) }
        try await done.value
        #expect(log == ["view-model", "view-model", "view-model"])
    }

    @Test("R15 actor-isolated handlers see the registration's value, with and without a task")
    func isolatedForms() async throws {
        let ledger = Ledger()
        let (promise, resolver) = Promise<Int>.pending()
        let viaTask = Trace.$id.withValue("to-ledger") {
            promise.then(isolatedTo: ledger) { ledger, _ in ledger.record(Trace.id) }
        }
        let onMain = Trace.$id.withValue("to-main") {
            promise.then(isolatedTo: MainActor.shared) { _, _ in Trace.id }
        }
        onSettlerThread { resolver.fulfill(1) }
        try await viaTask.value
        #expect(await ledger.entries == ["to-ledger"])
        #expect(try await onMain.value == "to-main")
    }

    @Test("R15 a handler's own bindings end with it, and nothing flows back to the settling thread")
    func nothingLeaks() async throws {
        let (promise, resolver) = Promise<Int>.pending()
        let inner = Trace.$id.withValue("first") {
            promise.then(on: .inline) { _ in Trace.$id.withValue("inside first") { Trace.id } }
        }
        let next = inner.then(on: .inline) { _ in Trace.id }
        let settlerAfter = Locked<String?>(nil)
        let settled = Countdown(1)
        onSettlerThread {
            resolver.fulfill(1)
            settlerAfter.withLock { $0 = Trace.id }
            settled.tick()
        }
        #expect(try await inner.value == "inside first")
        #expect(try await next.value == nil, "registered with nothing bound: the default")
        try await settled.wait()
        #expect(settlerAfter.current == "settler", "running handlers inline leaves the settling thread's values alone")
    }

    @Test("R15 a lazy body runs with the values bound where its promise was created")
    func lazyBody() async throws {
        let lazy = Trace.$id.withValue("created") {
            Promise<String?>.lazy { resolver in resolver.fulfill(Trace.id) }
        }
        let observed = Countdown(1)
        let result = Locked<Promise<String?>?>(nil)
        onSettlerThread {
            result.withLock { $0 = lazy.then(on: .inline) { $0 } }
            observed.tick()
        }
        try await observed.wait()
        #expect(try await result.current!.value == "created")
    }

    @Test("R15 each attempt of a retried body runs with the values bound where the run started")
    func retriedBody() async throws {
        let attempts = Locked<[String?]>([])
        let promise = Trace.$id.withValue("run") {
            Promise<Int>.retry(attempts: 3, delay: .fixed(.seconds(1)), scheduler: SettlerThreadScheduler()) { attempt in
                attempts.withLock { $0.append(Trace.id) }
                let (promise, resolver) = Promise<Int>.pending()
                // Each failure arrives from a thread with other values bound.
                onSettlerThread { attempt < 3 ? resolver.reject(TestError()) : resolver.fulfill(attempt) }
                return promise
            }
        }
        #expect(try await promise.guardedAgainstHang().value == 3)
        #expect(attempts.current == ["run", "run", "run"])
    }

    @Test("R15 an async body and an awaiting task keep their own task's values")
    func asyncBodies() async throws {
        let promise = Trace.$id.withValue("created") { Promise { () async -> String? in await Task.yield(); return Trace.id } }
        #expect(try await promise.value == "created")
        let awaited = try await Trace.$id.withValue("awaiting") { () async throws -> String? in
            _ = try await Promise<Int>(value: 1).then { $0 }.value
            return Trace.id
        }
        #expect(awaited == "awaiting")
    }

    @Test("R15 handlers registered inside a Task carry the task's values")
    func fromInsideATask() async throws {
        let (promise, resolver) = Promise<Int>.pending()
        let handler = await Task.detached {
            await Trace.$id.withValue("task") { () async -> Promise<String?> in
                await Task.yield()
                return promise.then(on: .global) { _ in Trace.id }
            }
        }.value
        onSettlerThread { resolver.fulfill(1) }
        #expect(try await handler.value == "task")
    }

    @Test("R15 combinators: a handler on the result, map's transforms and progress carry the values")
    func combinators() async throws {
        let inputs = (0..<3).map { _ in Promise<Int>.pending() }
        let all = Trace.$id.withValue("all") {
            Promise.all(inputs.map(\.promise)).then { _ in Trace.id }
        }
        let transforms = Locked<[String?]>([]), reports = Locked<[String?]>([])
        let sources = (0..<3).map { _ in Promise<Int>.pending() }
        let mapped = Trace.$id.withValue("map") {
            Promise<Int>.map(
                0..<3, maxConcurrency: 1,
                progress: .on(.global) { _ in reports.withLock { $0.append(Trace.id) } }
            ) { index in
                transforms.withLock { $0.append(Trace.id) }
                return sources[index].promise
            }
        }
        onSettlerThread {
            for (index, input) in inputs.enumerated() { input.resolver.fulfill(index) }
            for (index, source) in sources.enumerated() { source.resolver.fulfill(index) }
        }
        #expect(try await all.value == "all")
        #expect(try await mapped.value == [0, 1, 2])
        #expect(transforms.current == ["map", "map", "map"], "later transforms start on the settling thread")
        _ = try await mapped.then(on: .global) { $0 }.value
        #expect(Set(reports.current) == ["map"])
    }

    @Test("R15 an onCancel handler runs with the values bound where it was registered")
    func onCancel() async throws {
        let (promise, resolver) = Promise<Int>.pending()
        let seen = Locked<String??>(nil)
        let ran = Countdown(1)
        Trace.$id.withValue("registered") {
            resolver.onCancel {
                seen.withLock { $0 = .some(Trace.id) }
                ran.tick()
            }
        }
        onSettlerThread { promise.cancel() }
        try await ran.wait()
        #expect(seen.current == .some("registered"))
    }

    @Test("R15 registrations one after another on one thread each carry the values bound at their own registration")
    func consecutiveRegistrations() async throws {
        // Registrations that capture the same values share one capture; these must not.
        let (promise, resolver) = Promise<Int>.pending()
        let names = ["a", "a", "b", "b", "a"]
        let handlers = names.map { name in
            Trace.$id.withValue(name) { promise.then { _ in Trace.id } }
        }
        let inner = Trace.$id.withValue("outer") {
            Trace.$span.withValue(1) { promise.then { _ in "\(Trace.id ?? "nil") \(Trace.span)" } }
        }
        let sameIDOtherSpan = Trace.$id.withValue("outer") { promise.then { _ in "\(Trace.id ?? "nil") \(Trace.span)" } }
        resolver.fulfill(1)
        var seen: [String?] = []
        for handler in handlers { seen.append(try await handler.value) }
        #expect(seen == names)
        #expect(try await inner.value == "outer 1")
        #expect(try await sameIDOtherSpan.value == "outer 0", "one key changed: a new capture")
    }

    @Test("R15 a captured value lives as long as the handlers that carry it, not until the thread captures again")
    func capturedValueReleased() async throws {
        PromiseTaskLocals.propagate(Session.$current)
        weak var released: Session?
        let promise: Promise<Int> = {
            let session = Session()
            released = session
            let (source, resolver) = Promise<Int>.pending()
            let handler = Session.$current.withValue(session) { source.then(on: .inline) { $0 + (Session.current == nil ? 0 : 1) } }
            resolver.fulfill(1)
            return handler
        }()
        #expect(try await promise.value == 2, "the handler saw the session")
        #expect(released == nil, "nothing else holds the session once its handler has run and its promise settled")
    }

    @Test("R15 registering keys races with handlers being registered and run", arguments: 0..<4)
    func registrationRace(_ round: Int) async throws {
        let (promise, resolver) = Promise<Int>.pending()
        let handlers = Locked<[Promise<Bool>]>([])
        let registered = Countdown(4)
        for thread in 0..<4 {
            DispatchQueue.global().async {
                for index in 0..<50 {
                    if index % 10 == 0 { Trace.register() }
                    let label = "t\(thread)-\(index)"
                    let handler = Trace.$id.withValue(label) {
                        promise.then(on: index % 2 == 0 ? .inline : .global) { _ in Trace.id == label }
                    }
                    handlers.withLock { $0.append(handler) }
                    if thread == 0 && index == 25 + round { resolver.fulfill(1) }
                }
                registered.tick()
            }
        }
        try await registered.wait()
        for handler in handlers.current { #expect(try await handler.value) }
        #expect(PromiseTaskLocals.isPropagated(Trace.$id))
    }
}

private extension Promise {
    func asVoid() -> Promise<Void> { then(on: .inline) { _ in } }
}
