import Testing
@testable import ActorPromise

@Suite("Reliability: depth, storms and misuse")
struct StormTests {
    @Test("cancelling a tree of 100,000 branches while it settles: every branch settles, interest fires once", TestSettings.longTest)
    func cancellationStorm() async throws {
        try await AsyncMutex.memoryHeavy.withLock { () async throws in
            let fired = Locked(0)
            let (root, resolver) = Promise<Int>.pending(tracksInterest: true)
            resolver.onCancel { fired.increment() }
            var branches: [Promise<Int>] = []
            branches.reserveCapacity(100_000)
            for index in 0..<100_000 {
                branches.append(root.then(on: index % 2 == 0 ? .inline : .global) { $0 + 1 })
            }
            let all = branches
            await withTaskGroup(of: Void.self) { group in
                group.addTask { for branch in all[..<50_000] { branch.cancel() } }
                group.addTask { for branch in all[50_000...] { branch.cancel() } }
            }
            #expect(root.isCancelled)
            #expect(fired.current == 1)
            for branch in branches { _ = await branch.outcome }
        }
    }

    @Test("branches cancelled while the root is being fulfilled: each settles exactly once, either way")
    func cancelWhileSettling() async throws {
        let (root, resolver) = Promise<Int>.pending()
        let branches = (0..<20_000).map { _ in root.then { $0 + 1 } }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { resolver.fulfill(1) }
            group.addTask { for branch in branches { branch.cancel() } }
        }
        for branch in branches {
            switch await branch.outcome {
            case .success(let value): #expect(value == 2)
            case .failure(let error): #expect(error.isCancellation)
            }
        }
    }

    @Test("R3 a 1,000,000-iteration recursive promise loop settles in constant stack and frees every level as it goes", TestSettings.longTest)
    func millionIterationLoop() async throws {
        try await AsyncMutex.memoryHeavy.withLock { () async throws in try await AsyncMutex.collapsing.withLock { () async throws in
            // The levels behind the one in flight collapse as the loop runs (nothing but the loop
            // reaches them), so of every 10,000th level, watched, none is alive at the deepest
            // point; and none outlives the loop.
            let watched = Locked<[WeakReference]>([])
            let aliveAtDeepest = Locked(-1)
            @Sendable func loop(_ remaining: Int) -> Promise<Int> {
                if remaining == 0 {
                    aliveAtDeepest.withLock { $0 = watched.current.filter { $0.object != nil }.count }
                    return Promise(value: 0)
                }
                let level = Promise(value: remaining).then(on: .inline) { value in loop(value - 1) }
                if remaining % 10_000 == 0, remaining != 1_000_000 { watched.withLock { $0.append(WeakReference(level.core)) } }
                return level
            }
            #expect(try await loop(1_000_000).value == 0)
            #expect(watched.current.count == 99)
            #expect(aliveAtDeepest.current == 0, "\(aliveAtDeepest.current) of 99 watched levels alive at the deepest point")
            let alive = watched.current.filter { $0.object != nil }.count
            #expect(alive == 0, "\(alive) of 99 watched levels outlived the loop")
        } }
    }

    @Test("a recursive loop on the worker pool also keeps one pending promise")
    func poolLoop() async throws {
        @Sendable func loop(_ remaining: Int) -> Promise<Int> {
            if remaining == 0 { return Promise(value: 0) }
            return Promise(value: remaining).then { value in loop(value - 1) }
        }
        #expect(try await loop(50_000).value == 0)
    }

    @Test("misuse: resolve twice, reject after cancel, cancel twice — ignored, documented outcome")
    func misuse() async throws {
        let (promise, resolver) = Promise<Int>.pending()
        promise.cancel()
        resolver.fulfill(1)
        resolver.reject(TestError())
        promise.cancel()
        await #expect { try await promise.value } throws: { $0.isCancellation }
    }
}
