import Testing
import ActorPromise

@Suite("R1 states")
struct SettlementTests {
    @Test("R1 a promise settles once; later fulfil, reject and cancel are ignored")
    func settlesOnce() async throws {
        let (promise, resolver) = Promise<Int>.pending()
        let (inner, _keep) = Promise<Int>.pending()
        let child = promise.flatMap(on: .inline) { _ in inner }
        #expect(promise.isPending)
        resolver.fulfill(1)
        resolver.fulfill(2)
        resolver.reject(TestError())
        promise.cancel()
        #expect(try await promise.value == 1)
        #expect(promise.isFulfilled)
        #expect(!promise.isRejected)
        #expect(!promise.isCancelled, "a fulfilled promise is not cancelled, whatever cancel() came later")
        #expect(child.isCancelled, "the cancel still reached its pending child (R5)")
        _ = _keep
    }

    @Test("R1 a rejected promise keeps its error")
    func rejectedStays() async throws {
        let (promise, resolver) = Promise<Int>.pending()
        resolver.reject(TestError(id: 7))
        resolver.fulfill(3)
        await #expect(throws: TestError(id: 7)) { try await promise.value }
        #expect(promise.isRejected)
    }

    @Test("R1 settled constructors")
    func settledConstructors() async throws {
        #expect(try await Promise(value: 5).value == 5)
        await #expect(throws: TestError()) { try await Promise<Int>(error: TestError()).value }
        #expect(try await Promise(result: Result<Int, TestError>.success(9)).value == 9)
        #expect(Promise(value: 1).result.map { try? $0.get() } == 1)
    }

    @Test("R1 the body initializer runs at once; a thrown error rejects")
    func bodyInitializer() async throws {
        let ran = Locked(false)
        let promise = Promise<Int> { resolver in
            ran.withLock { $0 = true }
            resolver.fulfill(4)
        }
        #expect(ran.current)
        #expect(try await promise.value == 4)
        let failing = Promise<Int> { _ in throw TestError(id: 2) }
        await #expect(throws: TestError(id: 2)) { try await failing.value }
    }

    @Test("R1 settling from many threads at once: exactly one outcome wins")
    func racingSettlement() async throws {
        for _ in 0..<200 {
            let (promise, resolver) = Promise<Int>.pending()
            await withTaskGroup(of: Void.self) { group in
                for index in 0..<4 {
                    group.addTask {
                        if index == 3 { resolver.reject(TestError(id: index)) } else { resolver.fulfill(index) }
                    }
                }
            }
            let first = promise.result
            #expect(first != nil)
            let outcome = await promise.outcome
            #expect(String(describing: outcome) == String(describing: first!))
        }
    }
}
