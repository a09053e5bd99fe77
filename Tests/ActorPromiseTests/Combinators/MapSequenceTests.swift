import Testing
import ActorPromise

@Suite("map over a sequence")
struct MapSequenceTests {
    @Test("in series: one transform at a time, values in input order")
    func series() async throws {
        let active = Locked(0)
        let highWater = Locked(0)
        let values = try await Promise<Int>.map(0..<20) { element in
            let now = active.increment()
            highWater.withLock { $0 = max($0, now) }
            return Promise<Int>(value: element * 2).ensure { active.withLock { $0 -= 1 } }
        }.value
        #expect(values == (0..<20).map { $0 * 2 })
        #expect(highWater.current == 1)
    }

    @Test("in parallel: never more than the maximum pending at once")
    func parallel() async throws {
        let pending = Locked(0)
        let highWater = Locked(0)
        let values = try await Promise<Int>.map(0..<200, maxConcurrency: 4) { element in
            let now = pending.increment()
            highWater.withLock { $0 = max($0, now) }
            return Promise<Int> { resolver in
                WorkerPool.global.submit(ClosureWorkItem {
                    pending.withLock { $0 -= 1 }
                    resolver.fulfill(element)
                })
            }
        }.value
        #expect(values == Array(0..<200))
        #expect(highWater.current <= 4)
    }

    @Test("the first rejection stops new transforms and cancels the running ones")
    func rejection() async throws {
        let started = Locked(0)
        let (stuck, _keep) = Promise<Int>.pending()
        let result = Promise<Int>.map(0..<100, maxConcurrency: 2) { element -> Promise<Int> in
            started.increment()
            return element == 0 ? stuck : Promise(error: TestError(id: element))
        }
        await #expect(throws: TestError(id: 1)) { try await result.value }
        #expect(stuck.isCancelled)
        #expect(started.current == 2)
        _ = _keep
    }

    @Test("empty input and 10,000 elements")
    func sizes() async throws {
        #expect(try await Promise<Int>.map([Int]()) { Promise(value: $0) }.value == [])
        let many = try await Promise<Int>.map(0..<10_000, maxConcurrency: 8, on: .inline) { Promise(value: $0) }.value
        #expect(many == Array(0..<10_000))
    }
}
