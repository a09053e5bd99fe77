import Testing
import ActorPromise

@Suite("R4 propagation, R12 ensure")
struct ErrorPropagationTests {
    @Test("R4 a rejection skips fulfilment handlers until catch handles it")
    func skipsToCatch() async throws {
        let ran = Locked(0)
        let caught = Locked<TestError?>(nil)
        let end = Promise<Int>(error: TestError(id: 5))
            .then { value -> Int in ran.increment(); return value }
            .map { value -> Int in ran.increment(); return value }
            .catch { error in caught.withLock { $0 = error as? TestError } }
        try await end.value
        #expect(ran.current == 0)
        #expect(caught.current == TestError(id: 5))
    }

    @Test("R4 recover returns a value and the chain continues; rethrowing keeps it rejected")
    func recoverOrRethrow() async throws {
        let recovered = Promise<Int>(error: TestError()).recover { _ in 10 }.then { $0 + 1 }
        #expect(try await recovered.value == 11)
        let rethrown = Promise<Int>(error: TestError(id: 1)).recover { _ -> Int in throw TestError(id: 2) }
        await #expect(throws: TestError(id: 2)) { try await rethrown.value }
        let untouched = Promise(value: 3).recover { _ in 0 }
        #expect(try await untouched.value == 3)
        let followed = Promise<Int>(error: TestError()).recover { _ in Promise(value: 8) }
        #expect(try await followed.value == 8)
    }

    @Test("R4 catch fulfils with () after a fulfilment and after a handled error; a throw rejects")
    func catchOutcomes() async throws {
        try await Promise(value: 1).catch { _ in Issue.record("not called on fulfilment") }.value
        await #expect(throws: TestError(id: 9)) {
            try await Promise<Int>(error: TestError()).catch { _ in throw TestError(id: 9) }.value
        }
    }

    @Test("R4 catch ends a chain (Promise<Void>); recover replaces a rejection with a value or rethrows")
    func catchRecovers() async throws {
        let ended: Promise<Void> = Promise<Int>(error: TestError()).catch { _ in }
        try await ended.value
        #expect(try await Promise<Int>(error: TestError()).recover { _ in 5 }.value == 5)
        #expect(try await Promise(value: 2).recover { _ in 5 }.value == 2)
        await #expect(throws: TestError(id: 3)) {
            try await Promise<Int>(error: TestError(id: 1)).recover { _ -> Int in throw TestError(id: 3) }.value
        }
        try await Promise<Void>(error: TestError()).catch { _ in }.value
    }

    @Test("R12 ensure runs on both outcomes and passes the outcome through")
    func ensurePassesThrough() async throws {
        let count = Locked(0)
        #expect(try await Promise(value: 4).ensure { count.increment() }.value == 4)
        await #expect(throws: TestError(id: 4)) {
            try await Promise<Int>(error: TestError(id: 4)).ensure { count.increment() }.value
        }
        #expect(count.current == 2)
    }

    @Test("R12 ensureThen waits for the clean-up before the chain continues")
    func ensureThenWaits() async throws {
        let (cleanup, cleanupResolver) = Promise<Void>.pending()
        let (started, startedResolver) = Promise<Void>.pending()
        let chained = Promise(value: 7).ensureThen {
            startedResolver.fulfill()
            return cleanup
        }
        let after = chained.then(on: .inline) { $0 * 2 }
        try await started.value
        // The handler has returned the clean-up promise by the time the pool runs this: a chain
        // that did not wait would be settled now.
        try await Promise(value: ()).then(on: .global) { _ in }.value
        #expect(chained.isPending && after.isPending, "the chain must wait for the clean-up")
        cleanupResolver.fulfill()
        #expect(try await after.value == 14)
    }

    @Test("R12 a failing clean-up fails the chain with the clean-up's error")
    func ensureThenFailure() async throws {
        let failed = Promise(value: 7).ensureThen { Promise(error: TestError(id: 12)) }
        await #expect(throws: TestError(id: 12)) { try await failed.value }
        let thrown = Promise<Int>(error: TestError(id: 1)).ensureThen { throw TestError(id: 13) }
        await #expect(throws: TestError(id: 13)) { try await thrown.value }
        let kept = Promise<Int>(error: TestError(id: 1)).ensureThen { Promise() }
        await #expect(throws: TestError(id: 1)) { try await kept.value }
    }

    @Test("tap sees the outcome and passes it on")
    func tapObserves() async throws {
        let seen = Locked<Int?>(nil)
        let value = try await Promise(value: 6).tap { outcome in seen.withLock { $0 = try? outcome.get() } }.value
        #expect(value == 6)
        #expect(seen.current == 6)
    }

    @Test("throwing from every kind of handler rejects the derived promise")
    func throwingHandlers() async throws {
        let base = Promise(value: 1)
        await #expect(throws: TestError(id: 1)) { try await base.then { _ -> Int in throw TestError(id: 1) }.value }
        await #expect(throws: TestError(id: 2)) { try await base.flatMap { _ -> Promise<Int> in throw TestError(id: 2) }.value }
        await #expect(throws: TestError(id: 3)) {
            try await base.then(onFulfilled: { _ -> Int in throw TestError(id: 3) }, onRejected: { _ in 0 }).value
        }
    }
}
