import Testing
import ActorPromise

@Suite("R2 then, R3 results")
struct ThenTests {
    /// The abandonments these tests provoke are recorded, not printed as warnings.
    init() { AbandonmentLog.install() }

    @Test("R2 then returns at once, and the handler never runs inside the then call")
    func neverSynchronous() async throws {
        let inside = Locked(false)
        let violations = Locked(0)
        let caller = currentThreadID()
        let settled = Promise(value: 1)
        var children: [Promise<Int>] = []
        for _ in 0..<100 {
            inside.withLock { $0 = true }
            children.append(settled.then { value in
                if currentThreadID() == caller, inside.current { violations.increment() }
                return value
            })
            inside.withLock { $0 = false }
        }
        for child in children { _ = try await child.value }
        #expect(violations.current == 0)
    }

    @Test("R2 the handler never runs inside the fulfil call (A+ 2.2.4), except inline")
    func notInsideFulfil() async throws {
        let (promise, resolver) = Promise<Int>.pending()
        let fulfilling = Locked(false)
        let caller = currentThreadID()
        let child = promise.then { _ in currentThreadID() == caller && fulfilling.current }
        fulfilling.withLock { $0 = true }
        resolver.fulfill(1)
        fulfilling.withLock { $0 = false }
        #expect(try await child.value == false)

        let (inlinePromise, inlineResolver) = Promise<Int>.pending()
        let ranInside = Locked(false)
        inlinePromise.then(on: .inline) { _ in ranInside.withLock { $0 = true } }
        inlineResolver.fulfill(1)
        #expect(ranInside.current, "inline is documented as synchronous")
    }

    @Test("R2 handlers on one serial context run in registration order, each once")
    func registrationOrder() async throws {
        let (promise, resolver) = Promise<Int>.pending()
        let order = Locked<[Int]>([])
        var children: [Promise<Void>] = []
        for index in 0..<50 { children.append(promise.then(on: .inline) { _ in order.append(index) }) }
        resolver.fulfill(0)
        for index in 50..<100 { children.append(promise.then(on: .inline) { _ in order.append(index) }) }
        for child in children { try await child.value }
        #expect(order.current == Array(0..<100))
    }

    @Test("R2 handlers registered from many threads, before and after settlement, each run once")
    func concurrentRegistration() async throws {
        let (promise, resolver) = Promise<Int>.pending()
        let count = Locked(0)
        await withTaskGroup(of: Promise<Void>.self) { group in
            for index in 0..<400 {
                group.addTask {
                    if index == 200 { resolver.fulfill(1) }
                    return promise.then { _ in count.increment(); return }
                }
            }
            for await child in group { _ = try? await child.value }
        }
        #expect(count.current == 400)
    }

    @Test("R3 a returned value fulfils the child; a thrown error rejects it")
    func valuesAndThrows() async throws {
        let base = Promise(value: 2)
        #expect(try await base.then { $0 * 21 }.value == 42)
        #expect(try await base.map { "\($0)" }.value == "2")
        await #expect(throws: TestError(id: 1)) {
            try await base.then { _ -> Int in throw TestError(id: 1) }.value
        }
    }

    @Test("R3 a handler run for its effect fulfils with () after it ran, or rejects with what it throws")
    func effectHandlers() async throws {
        let ran = Locked<[Int]>([])
        let base = Promise(value: 2)
        let done: Promise<Void> = base.then { value in ran.append(value) }
        try await done.value
        #expect(ran.current == [2])
        await #expect(throws: TestError(id: 4)) {
            try await base.then { (_: Int) throws in throw TestError(id: 4) }.value
        }
        let skipped: Promise<Void> = Promise<Int>(error: TestError(id: 5)).then { value in ran.append(value) }
        await #expect(throws: TestError(id: 5)) { try await skipped.value }
        #expect(ran.current == [2])
    }

    @Test("R3 a returned promise is adopted: pending, fulfilled and rejected")
    func adoption() async throws {
        let (inner, innerResolver) = Promise<String>.pending()
        let outer = Promise(value: 1).then { _ in inner }
        #expect(outer.isPending)
        innerResolver.fulfill("late")
        #expect(try await outer.value == "late")
        let rejected = Promise(value: 1).flatMap { _ in Promise<Int>(error: TestError(id: 3)) }
        await #expect(throws: TestError(id: 3)) { try await rejected.value }
        let settled = Promise(value: 1).then { Promise(value: $0 + 1) }
        #expect(try await settled.value == 2)
    }

    @Test("R3 a handler returning its own promise rejects with selfResolution, no hang")
    func selfResolution() async throws {
        let (promise, resolver) = Promise<Int>.pending()
        let box = Locked<Promise<Int>?>(nil)
        let child = promise.then { _ in box.current! }
        box.withLock { $0 = child }
        resolver.fulfill(1)
        await #expect {
            try await child.value
        } throws: { ($0 as? PromiseError)?.code == .selfResolution }
        let (other, otherResolver) = Promise<Int>.pending()
        otherResolver.resolve(with: other)
        await #expect { try await other.value } throws: { ($0 as? PromiseError)?.code == .selfResolution }
    }

    @Test("R3 two-handler then: exactly one handler runs, and either may recover or throw")
    func twoHandlers() async throws {
        let fulfilled = Promise(value: 3).then(onFulfilled: { $0 + 1 }, onRejected: { _ in -1 })
        #expect(try await fulfilled.value == 4)
        let recovered = Promise<Int>(error: TestError()).then(onFulfilled: { $0 + 1 }, onRejected: { _ in -1 })
        #expect(try await recovered.value == -1)
        let rethrown = Promise<Int>(error: TestError(id: 1)).then(
            onFulfilled: { $0 }, onRejected: { _ in throw TestError(id: 2) })
        await #expect(throws: TestError(id: 2)) { try await rethrown.value }
    }

    @Test("R3 a 1,000,000-link inline chain settles and is freed without stack overflow", TestSettings.longTest)
    func millionLinkInlineChain() async throws {
        try await AsyncMutex.memoryHeavy.withLock { () async throws in
            let (root, resolver) = Promise<Int>.pending()
            var tail = root
            for _ in 0..<1_000_000 { tail = tail.then(on: .inline) { $0 + 1 } }
            resolver.fulfill(0)
            #expect(try await tail.value == 1_000_000)
        }
    }

    @Test("R3 a 1,000,000-link chain on the worker pool settles in constant stack", TestSettings.longTest)
    func millionLinkPoolChain() async throws {
        try await AsyncMutex.memoryHeavy.withLock { () async throws in
            let (root, resolver) = Promise<Int>.pending()
            var tail = root
            for _ in 0..<1_000_000 { tail = tail.then { $0 + 1 } }
            resolver.fulfill(0)
            #expect(try await tail.value == 1_000_000)
        }
    }

    @Test("R3 a pending 1,000,000-link chain dropped unresolved is torn down without overflow", TestSettings.longTest)
    func droppedPendingChain() async throws {
        try await AsyncMutex.memoryHeavy.withLock { () async throws in
            let observed = Locked<(any Error)?>(nil)
            do {
                let (root, resolver) = Promise<Int>.pending()
                var tail = root
                for _ in 0..<1_000_000 { tail = tail.then(on: .inline) { $0 + 1 } }
                tail.observeForTest { if case .failure(let error) = $0 { observed.withLock { $0 = error } } }
                _ = resolver
            }
            #expect((observed.current as? PromiseError)?.code == .abandoned)
        }
    }

    @Test("R3 a recursive promise loop of 100,000 steps settles in constant stack")
    func recursiveLoop() async throws {
        @Sendable func loop(_ remaining: Int) -> Promise<Int> {
            if remaining == 0 { return Promise(value: 0) }
            return Promise(value: remaining).then(on: .inline) { value in loop(value - 1).then(on: .inline) { $0 + 1 } }
        }
        #expect(try await loop(100_000).value == 100_000)
    }
}

extension Promise {
    /// Observes on the settling thread (test helper over the inline context).
    func observeForTest(_ body: @escaping @Sendable (Result<Value, any Error>) -> Void) {
        tap(on: .inline, body)
    }
}
