import Testing
import ActorPromise
import ActorPromiseExecutors

/// A callback API whose requests run until they complete or are cancelled, wrapped the way the
/// README shows: the body initializer and `resolver.onCancel`. Nothing here knows about interest
/// tracking.
final class RequestService: Sendable {
    private let resolvers = Locked<[Int: Resolver<Int>]>([:])
    let started = Locked<[Int]>([])
    let stopped = Locked<[Int]>([])
    private let startCount: Countdown
    private let stopCount: Countdown

    /// - Parameters:
    ///   - starts: How many requests `waitForStarts()` waits for.
    ///   - stops: How many cancelled requests `waitForStops()` waits for.
    init(starts: Int = 0, stops: Int = 0) {
        startCount = Countdown(starts)
        stopCount = Countdown(stops)
    }

    func fetch(_ id: Int) -> Promise<Int> {
        Promise { resolver in
            resolvers.withLock { $0[id] = resolver }
            resolver.onCancel { [self] in
                stopped.append(id)
                stopCount.tick()
            }
            started.append(id)
            startCount.tick()
        }
    }

    func complete(_ id: Int, with value: Int) {
        resolvers.withLock { $0.removeValue(forKey: id) }?.fulfill(value)
    }

    func fail(_ id: Int) {
        resolvers.withLock { $0.removeValue(forKey: id) }?.reject(TestError(id: id))
    }

    func waitForStarts() async throws { try await startCount.wait() }
    func waitForStops() async throws { try await stopCount.wait() }
}

/// A view model that loads through the service and cancels when the screen goes away.
@MainActor
final class LoaderModel {
    var task: Task<Int, any Error>?

    func load(from service: RequestService) {
        task = Task { try await service.fetch(1).then { $0 * 2 }.value }
    }

    func disappear() { task?.cancel() }
}

/// An actor that owns a download and cancels it.
actor Downloader {
    private var task: Task<Int, any Error>?

    func start(_ service: RequestService) {
        task = Task { try await service.fetch(1).value }
    }

    func stop() -> Task<Int, any Error>? {
        task?.cancel()
        return task
    }
}

@Suite("B7 cancelling the last waiter stops the work")
struct InterestTests {
    /// The abandonments these tests provoke are recorded, not printed as warnings.
    init() { AbandonmentLog.install() }

    @Test("B7 cancelling the task that awaits a wrapped request runs its onCancel")
    func awaitedRequest() async throws {
        let service = RequestService(stops: 1)
        let request = service.fetch(1)
        let task = Task { try await request.value }
        task.cancel()
        await #expect { try await task.value } throws: { $0.isCancellation }
        try await service.waitForStops()
        #expect(request.isCancelled)
        #expect(service.stopped.current == [1])
    }

    @Test("B7 the same from a @MainActor view model, through a then")
    @MainActor
    func fromMainActor() async throws {
        let service = RequestService(starts: 1, stops: 1)
        let model = LoaderModel()
        model.load(from: service)
        try await service.waitForStarts()
        model.disappear()
        await #expect { try await model.task!.value } throws: { $0.isCancellation }
        try await service.waitForStops()
    }

    @Test("B7 the same from an actor")
    func fromActor() async throws {
        let service = RequestService(starts: 1, stops: 1)
        let downloader = Downloader()
        await downloader.start(service)
        try await service.waitForStarts()
        let task = try #require(await downloader.stop())
        await #expect { try await task.value } throws: { $0.isCancellation }
        try await service.waitForStops()
    }

    @Test("B7 a long chain: losing the last awaiter cancels every link up to the request")
    func chain() async throws {
        let service = RequestService(stops: 1)
        let request = service.fetch(1)
        let last = request.then { $0 + 1 }.map(on: .inline) { $0 * 2 }.tap { _ in }.recover { _ in 0 }
        let task = Task { try await last.value }
        task.cancel()
        _ = await task.result
        try await service.waitForStops()
        #expect(request.isCancelled && last.isCancelled)
    }

    @Test("B7 a request others still wait on keeps running when one awaiter goes away")
    func sharedRequest() async throws {
        let service = RequestService()
        let request = service.fetch(1)
        let shown = request.then(on: .inline) { "\($0)" }
        let reported = Locked<Int?>(nil)
        let (callback, callbackResolver) = Promise<Void>.pending()
        request.whenComplete { result in
            reported.withLock { $0 = try? result.get() }
            callbackResolver.fulfill()
        }
        let task = Task { try await request.value }
        task.cancel()
        await #expect { try await task.value } throws: { $0.isCancellation }
        #expect(request.isPending, "a then and a callback caller still wait for it")
        service.complete(1, with: 7)
        #expect(try await shown.value == "7")
        try await callback.value
        #expect(reported.current == 7)
        #expect(service.stopped.current.isEmpty)
    }

    @Test("B7 tracksInterest: false keeps the work running after its last awaiter went away")
    func optOut() async throws {
        let stopped = Locked(0)
        let (request, resolver) = Promise<Int>.pending(tracksInterest: false)
        resolver.onCancel { stopped.increment() }
        let task = Task { try await request.then { $0 }.value }
        task.cancel()
        await #expect { try await task.value } throws: { $0.isCancellation }
        #expect(request.isPending)
        resolver.fulfill(3)
        #expect(try await request.value == 3)
        #expect(stopped.current == 0)
    }

    @Test("B7 map(maxConcurrency:) cancels the requests in flight and starts no more")
    func boundedMap() async throws {
        let service = RequestService(starts: 4, stops: 4)
        let all = Promise<Int>.map(0..<10, maxConcurrency: 4) { service.fetch($0) }
        let task = Task { try await all.value }
        try await service.waitForStarts()
        task.cancel()
        await #expect { try await task.value } throws: { $0.isCancellation }
        try await service.waitForStops()
        #expect(Set(service.stopped.current) == Set(service.started.current))
        #expect(service.started.current.count == 4, "nothing new starts after the cancel")
    }

    @Test("B7 timeout(after:) stops the request it gave up on")
    func timeout() async throws {
        let service = RequestService(stops: 1)
        let clock = ManualScheduler()
        let limited = service.fetch(1).timeout(after: .seconds(5), scheduler: clock)
        clock.advance(by: .seconds(5))
        await #expect { try await limited.value } throws: { ($0 as? PromiseError)?.code == .timedOut }
        try await service.waitForStops()
    }

    @Test("B7 race and any stop the losers; all stops the rest after a failure")
    func combinators() async throws {
        let service = RequestService(stops: 5)
        let raced = Promise.race([service.fetch(1), service.fetch(2)])
        service.complete(1, with: 1)
        #expect(try await raced.value == 1)
        let anyOf = Promise.any([service.fetch(3), service.fetch(4)])
        service.complete(4, with: 4)
        #expect(try await anyOf.value == 4)
        let both = Promise.all([service.fetch(5), service.fetch(6)])
        service.fail(5)
        await #expect(throws: TestError(id: 5)) { try await both.value }
        let zipped = zip(service.fetch(7), service.fetch(8))
        let task = Task { try await zipped.value }
        task.cancel()
        _ = await task.result
        try await service.waitForStops()
        #expect(Set(service.stopped.current) == [2, 3, 6, 7, 8])
    }

    @Test("B7 a combinator never cancels an input that somebody else waits on")
    func sharedInput() async throws {
        let service = RequestService()
        let shared = service.fetch(1)
        let other = shared.then(on: .inline) { $0 }
        let raced = Promise.race([shared, Promise(value: 0)])
        #expect(try await raced.value == 0)
        #expect(shared.isPending, "`other` still waits for it")
        service.complete(1, with: 9)
        #expect(try await other.value == 9)
    }

    @Test("B7 cancelling a retried run stops the attempt in flight")
    func retry() async throws {
        let service = RequestService(starts: 1, stops: 1)
        let run = Retryable { service.fetch($0) }.retry(attempts: 3).run()
        let task = Task { try await run.value }
        try await service.waitForStarts()
        task.cancel()
        await #expect { try await task.value } throws: { $0.isCancellation }
        try await service.waitForStops()
        #expect(service.started.current == [1])
    }

    @Test("B7 a blocking wait that times out stops the work it was the last to wait for")
    func blockingWaitGivesUp() throws {
        let service = RequestService()
        let request = service.fetch(1)
        #expect { try request.wait(timeout: .milliseconds(10)) } throws: { ($0 as? PromiseError)?.code == .timedOut }
        // onCancel runs on the cancelling thread: the wait's own, before it throws.
        #expect(service.stopped.current == [1])
    }

    @Test("B7 withCompletion: cancelling the awaiting task cancels the operation")
    func completionAPI() async throws {
        let cancelled = Countdown(1)
        let pendingCompletion = Locked<Resolver<Int>?>(nil)  // the API keeps its completion handler
        let task = Task {
            try await withCompletion { (resolver: Resolver<Int>) in
                pendingCompletion.withLock { $0 = resolver }
                resolver.onCancel { cancelled.tick() }
            }
        }
        task.cancel()
        await #expect { try await task.value } throws: { $0.isCancellation }
        try await cancelled.wait()
    }

    @Test("B7 a promise a handler returns after its branch was cancelled is told nobody wants it")
    func returnedAfterCancel() async throws {
        let service = RequestService(stops: 1)
        let (entered, enteredResolver) = Promise<Void>.pending()
        let handlerMayReturn = Gate()
        let pool = WorkerPool(threadCount: 1, name: "returned-after-cancel")  // the handler blocks its own thread, not the shared pool
        let derived = Promise(value: 1).then(on: pool) { id -> Promise<Int> in
            enteredResolver.fulfill()
            handlerMayReturn.wait()
            return service.fetch(id)
        }
        try await entered.value
        derived.cancel()
        handlerMayReturn.open()
        try await service.waitForStops()
        #expect(derived.isCancelled)
    }
}
