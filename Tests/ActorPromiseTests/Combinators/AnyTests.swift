import Testing
import ActorPromise

@Suite("any, race")
struct AnyTests {
    @Test("any takes the first fulfilment, skipping rejections, and cancels the rest")
    func firstFulfilment() async throws {
        let (slow, _keep) = Promise<Int>.pending()
        let winner = Promise.any([Promise<Int>(error: TestError(id: 1)), slow, Promise(value: 7)])
        #expect(try await winner.value == 7)
        #expect(slow.isCancelled)
        _ = _keep
    }

    @Test("any rejects only when all reject, with all errors in input order")
    func allRejected() async throws {
        let (late, lateResolver) = Promise<Int>.pending()
        let result = Promise.any([late, Promise<Int>(error: TestError(id: 2))])
        lateResolver.reject(TestError(id: 1))
        await #expect {
            try await result.value
        } throws: { error in
            ((error as? AggregateError)?.errors.compactMap { ($0 as? TestError)?.id }) == [1, 2]
        }
    }

    @Test("any and race of nothing reject with an empty AggregateError")
    func empty() async throws {
        await #expect { try await Promise<Int>.any([]).value } throws: { ($0 as? AggregateError)?.errors.isEmpty == true }
        await #expect { try await Promise<Int>.race([]).value } throws: { ($0 as? AggregateError)?.errors.isEmpty == true }
    }

    @Test("race settles like the first to settle, rejection included, and cancels the losers")
    func race() async throws {
        let (loser, _keep) = Promise<Int>.pending()
        await #expect(throws: TestError(id: 3)) { try await Promise.race([loser, Promise(error: TestError(id: 3))]).value }
        #expect(loser.isCancelled)
        let (other, _keep2) = Promise<Int>.pending()
        #expect(try await Promise.race([other, Promise(value: 4)]).value == 4)
        _ = (_keep, _keep2)
    }

    @Test("race of 10,000 inputs")
    func tenThousand() async throws {
        let pairs = (0..<10_000).map { _ in Promise<Int>.pending() }
        let race = Promise.race(pairs.map(\.promise))
        pairs[9_999].resolver.fulfill(9_999)
        #expect(try await race.value == 9_999)
        #expect(pairs[0].promise.isCancelled)
    }
}
