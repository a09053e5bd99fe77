import Testing
import ActorPromise

@Suite("all, allSettled")
struct AllTests {
    @Test("all keeps input order, whatever the order of settlement")
    func inputOrder() async throws {
        let pairs = (0..<5).map { _ in Promise<Int>.pending() }
        let all = Promise.all(pairs.map(\.promise))
        for (index, pair) in pairs.enumerated().reversed() { pair.resolver.fulfill(index) }
        #expect(try await all.value == [0, 1, 2, 3, 4])
    }

    @Test("all of nothing is [] at once")
    func empty() async throws {
        #expect(try await Promise<Int>.all([]).value == [])
        #expect(try await Promise<Int>.allSettled([]).value.isEmpty)
    }

    @Test("the first rejection rejects all and cancels the inputs still pending")
    func firstRejection() async throws {
        let (pending, _keep) = Promise<Int>.pending()
        let all = Promise.all([pending, Promise(error: TestError(id: 1)), Promise(value: 3)])
        await #expect(throws: TestError(id: 1)) { try await all.value }
        #expect(pending.isCancelled)
        _ = _keep
    }

    @Test("cancelling all mid-flight cancels every input")
    func cancelMidFlight() async throws {
        let pairs = (0..<3).map { _ in Promise<Int>.pending() }
        let all = Promise.all(pairs.map(\.promise))
        pairs[0].resolver.fulfill(1)
        all.cancel()
        await #expect { try await all.value } throws: { $0.isCancellation }
        #expect(pairs[1].promise.isCancelled && pairs[2].promise.isCancelled)
    }

    @Test("all of 10,000 promises fulfilled from two threads")
    func tenThousand() async throws {
        let pairs = (0..<10_000).map { _ in Promise<Int>.pending() }
        let all = Promise.all(pairs.map(\.promise))
        let evens = pairs.enumerated().filter { $0.offset % 2 == 0 }.map { ($0.offset, $0.element.resolver) }
        let odds = pairs.enumerated().filter { $0.offset % 2 == 1 }.map { ($0.offset, $0.element.resolver) }
        WorkerPool.global.submit(ClosureWorkItem { for (index, resolver) in evens { resolver.fulfill(index) } })
        WorkerPool.global.submit(ClosureWorkItem { for (index, resolver) in odds { resolver.fulfill(index) } })
        #expect(try await all.value == Array(0..<10_000))
    }

    @Test("allSettled waits for every input and reports each outcome in order")
    func allSettled() async throws {
        let settled = try await Promise.allSettled([Promise(value: 1), Promise<Int>(error: TestError(id: 2))]).value
        #expect(try settled[0].get() == 1)
        #expect(throws: TestError(id: 2)) { try settled[1].get() }
    }
}
