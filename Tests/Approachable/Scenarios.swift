import ActorPromise
import Synchronization
import Testing
import ModernSDK

/// The approachable-concurrency examples, driven as an app and a server would drive them. The
/// same files build in three test targets: plain Swift 6, default main-actor isolation with
/// `NonisolatedNonsendingByDefault` and `InferIsolatedConformances`, and
/// `NonisolatedNonsendingByDefault` alone.
@Suite("Approachable concurrency: a view model, an actor and a server, as the docs write them")
struct ApproachableScenarios {
    @Test("a view model shows all pages, a retried page, a Swift 5 SDK's text and its failure")
    @MainActor func viewModel() async throws {
        let model = RowsModel(services: Services())
        try await model.loadPages(2).value
        #expect(model.rows.count == 4)
        #expect(model.status == "loaded 2 pages")

        try await model.loadWithRetry(page: 4).value   // pages 4 and 3 fail, page 2 loads
        #expect(model.rows == ["page 2 row 0", "page 2 row 1"])

        try await model.showText("hello").value
        #expect(model.status == "hello")
        try await model.loadWithRetry(page: 9).value
        #expect(model.status.hasPrefix("failed: "))
    }

    @Test("a batch reports each step on the main actor, in order")
    @MainActor func progress() async throws {
        let model = RowsModel(services: Services())
        let sizes = try await model.sizes(["a", "bb", "ccc"]).value
        #expect(sizes == [1, 2, 3])
        // The last step is submitted to the main actor before the batch's handlers there.
        #expect(model.steps == ["1/3", "2/3", "3/3"])
        #expect(model.status == "sizes [1, 2, 3]")
    }

    @Test("cancelling the task that awaits a page cancels the SDK's request")
    @MainActor func cancellationThroughTask() async throws {
        let model = RowsModel(services: Services())
        let request = Mutex<SlowRequest?>(nil)
        let (started, start) = AsyncStream.makeStream(of: Void.self)
        let task = Task { try await model.slowPage(1) { slow in request.withLock { $0 = slow }; start.yield() } }
        for await _ in started { break }
        task.cancel()
        await #expect(throws: PromiseError.self) { try await task.value }
        #expect(request.withLock { $0?.isCancelled } == true)
        #expect(model.rows.isEmpty)
    }

    @Test("an actor caches pages through a handler isolated to it")
    func actorCache() async throws {
        let cache = RowCache(services: Services())
        let first = try await cache.rows(page: 0).value
        let again = try await cache.rows(page: 0).value
        #expect(first == again)
        #expect(await cache.count == 1)
    }

    @Test("a server handles requests concurrently; a failed page answers with its error")
    func server() async {
        let handler = RequestHandler(services: Services(pages: 2))
        let lines = await handler.handleAll([0, 1, 2, 0])
        #expect(lines[0] == "page 0 row 0, page 0 row 1")
        #expect(lines[1] == "page 1 row 0, page 1 row 1")
        #expect(lines[2] == "\(FeedError.notFound(page: 2))")
        #expect(lines[3] == lines[0])
    }

    @Test("work of one's own, a Runnable the compiler checks, runs on a queue from main-actor code; a dropped one says so")
    @MainActor func ownRunnable() async throws {
        let (thumbnail, resolver) = Promise<String>.pending()
        SerialQueue(label: "thumbnails").submit(Thumbnail(path: "a.png", done: resolver))
        #expect(try await thumbnail.value == "thumbnail of a.png")

        let (dropped, dropper) = Promise<String>.pending()
        let stopped = RunLoopThread(name: "stopped")
        stopped.stop()
        stopped.submit(Thumbnail(path: "b.png", done: dropper))
        await #expect(throws: ThumbnailDropped.self) { try await dropped.value }
    }

    @Test("a Swift 5 SDK's failure rejects, its value fulfils, from any isolation")
    func legacyCallbacks() async throws {
        struct Broken: Error {}
        let services = Services()
        #expect(try await services.count("four").value == 4)
        await #expect(throws: Broken.self) { try await services.count("x", failing: Broken()).value }
    }
}
