import Testing
import ActorPromise

/// An avatar cache a @MainActor app keeps: each download is handed to every view that asks.
@MainActor
final class AvatarCache {
    let service: RequestService
    private var avatars: [Int: Promise<Int>] = [:]
    init(service: RequestService) { self.service = service }

    func avatar(_ id: Int, sharing: Bool = true) -> Promise<Int> {
        if let cached = avatars[id] { return cached }
        let download = sharing ? service.fetch(id).shared() : service.fetch(id)
        avatars[id] = download
        return download
    }
}

@Suite("B7 shared(): a promise kept to hand out later")
struct SharedTests {
    @Test("B7 a cached shared download goes on when its first taker is cancelled, and serves the next")
    @MainActor
    func cacheKeepsWork() async throws {
        let service = RequestService(starts: 1)
        let cache = AvatarCache(service: service)
        let firstView = cache.avatar(1).then(on: .main) { $0 * 2 }
        try await service.waitForStarts()
        firstView.cancel()
        let secondView = cache.avatar(1).then(on: .main) { $0 * 3 }
        service.complete(1, with: 10)
        #expect(try await secondView.value == 30)
        #expect(service.stopped.current.isEmpty, "the download was never stopped")
        await #expect { try await firstView.value } throws: { $0.isCancellation }
    }

    @Test("B7 without shared(), cancelling the only taker stops the download (the behaviour shared() opts out of)")
    @MainActor
    func unsharedStops() async throws {
        let service = RequestService(starts: 1, stops: 1)
        let cache = AvatarCache(service: service)
        let firstView = cache.avatar(2, sharing: false).then(on: .main) { $0 * 2 }
        try await service.waitForStarts()
        firstView.cancel()
        try await service.waitForStops()
        #expect(service.stopped.current == [2])
    }

    @Test("B7 cancelling the shared promise itself stops the work when nobody else waits")
    func cancelSharedItself() async throws {
        let service = RequestService(starts: 1, stops: 1)
        let shared = service.fetch(3).shared()
        let taker = shared.then { $0 }
        try await service.waitForStarts()
        shared.cancel()
        try await service.waitForStops()
        await #expect { try await taker.value } throws: { $0.isCancellation }
    }
}
