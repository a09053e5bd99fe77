import Testing
import ActorPromise

/// Promises/A+ sections 2.1–2.3, as they translate to a typed Swift API (2.3.3's "thenables" are
/// promises of this library: there is no untyped `then` to probe).
@Suite("Promises/A+ conformance")
struct APlusConformanceTests {
    @Test("2.1.1–2.1.3 pending may transition once; fulfilled and rejected never change")
    func states() async throws {
        let (promise, resolver) = Promise<Int>.pending()
        #expect(promise.isPending && !promise.isFulfilled && !promise.isRejected)
        resolver.fulfill(1)
        resolver.reject(TestError())
        resolver.fulfill(2)
        #expect(promise.isFulfilled && !promise.isRejected)
        #expect(try await promise.value == 1)

        let (rejected, rejecter) = Promise<Int>.pending()
        rejecter.reject(TestError(id: 1))
        rejecter.fulfill(3)
        await #expect(throws: TestError(id: 1)) { try await rejected.value }
    }

    @Test("2.2.2 / 2.2.3 onFulfilled and onRejected are called once, after settlement, with the value or reason")
    func calledOnceAfterSettlement() async throws {
        let (promise, resolver) = Promise<Int>.pending()
        let calls = Locked<[String]>([])
        let done = promise.then(onFulfilled: { value in calls.withLock { $0.append("f\(value)") } },
                                onRejected: { _ in calls.withLock { $0.append("r") } })
        #expect(calls.current.isEmpty, "not called before fulfilment")
        resolver.fulfill(5)
        resolver.reject(TestError())
        try await done.value
        #expect(calls.current == ["f5"])
    }

    @Test("2.2.4 handlers run only after the registering and settling calls returned (non-inline contexts)")
    func asynchronous() async throws {
        let caller = currentThreadID()
        let inCall = Locked(false)
        let violations = Locked(0)
        let (promise, resolver) = Promise<Int>.pending()
        inCall.withLock { $0 = true }
        let first = promise.then { _ in if currentThreadID() == caller && inCall.current { violations.increment() } }
        resolver.fulfill(1)
        let second = promise.then { _ in if currentThreadID() == caller && inCall.current { violations.increment() } }
        inCall.withLock { $0 = false }
        try await first.value
        try await second.value
        #expect(violations.current == 0)
    }

    @Test("2.2.6 multiple handlers on one promise run in the order of their then calls")
    func multipleHandlersInOrder() async throws {
        let order = Locked<[Int]>([])
        let (promise, resolver) = Promise<Int>.pending()
        let queue = SerialQueue(label: "a+")
        let handlers = (0..<10).map { index in promise.then(on: queue) { _ in order.append(index) } }
        resolver.reject(TestError())
        let rejectedOrder = Locked<[Int]>([])
        let rejectionHandlers = (0..<10).map { index in
            promise.then(on: queue, onFulfilled: { _ in }, onRejected: { _ in rejectedOrder.append(index) })
        }
        for handler in handlers { _ = await handler.outcome }
        for handler in rejectionHandlers { try await handler.value }
        #expect(order.current.isEmpty, "fulfilment handlers skipped on rejection")
        #expect(rejectedOrder.current == Array(0..<10))
    }

    @Test("2.2.7 then returns a promise: fulfilled with a handler's value, rejected with its throw")
    func thenReturnsPromise() async throws {
        #expect(try await Promise(value: 1).then { $0 + 1 }.value == 2)
        await #expect(throws: TestError(id: 7)) { try await Promise(value: 1).then { _ -> Int in throw TestError(id: 7) }.value }
        // 2.2.7.3 / 2.2.7.4: without a handler for an outcome, the outcome passes through.
        #expect(try await Promise(value: 3).recover { _ in 0 }.value == 3)
        await #expect(throws: TestError(id: 8)) { try await Promise<Int>(error: TestError(id: 8)).then { $0 + 1 }.value }
    }

    @Test("2.3.1 resolving a promise with itself rejects it (selfResolution)")
    func selfResolution() async throws {
        let (promise, resolver) = Promise<Int>.pending()
        resolver.resolve(with: promise)
        await #expect { try await promise.value } throws: { ($0 as? PromiseError)?.code == .selfResolution }
    }

    @Test("2.3.2 a promise resolved with another promise adopts its state: pending, then fulfilled or rejected")
    func adoption() async throws {
        let (inner, innerResolver) = Promise<Int>.pending()
        let (outer, outerResolver) = Promise<Int>.pending()
        outerResolver.resolve(with: inner)
        #expect(outer.isPending, "2.3.2.1 stays pending while the adopted promise is")
        innerResolver.fulfill(4)
        #expect(try await outer.value == 4)
        let (rejectedOuter, rejectedResolver) = Promise<Int>.pending()
        rejectedResolver.resolve(with: Promise(error: TestError(id: 9)))
        await #expect(throws: TestError(id: 9)) { try await rejectedOuter.value }
    }

    @Test("2.3.4 a plain value fulfils")
    func plainValue() async throws {
        let (promise, resolver) = Promise<[Int]>.pending()
        resolver.resolve(Result<[Int], TestError>.success([1, 2]))
        #expect(try await promise.value == [1, 2])
    }
}
