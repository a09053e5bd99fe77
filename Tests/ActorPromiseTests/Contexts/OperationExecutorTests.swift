import Testing
import ActorPromise

@Suite("E3 operation executor")
struct OperationExecutorTests {
    /// Adds an operation that fulfils a promise when it has run.
    static func probe(_ executor: OperationExecutor, priority: OperationExecutor.Priority = .normal,
                      dependencies: [QueuedOperation] = [], _ body: @escaping @Sendable () -> Void) -> (QueuedOperation, Promise<Void>) {
        let (promise, resolver) = Promise<Void>.pending()
        let operation = executor.addOperation(priority: priority, dependencies: dependencies) {
            body()
            resolver.fulfill()
        }
        return (operation, promise)
    }

    @Test("E3 the maximum concurrency is never exceeded")
    func maxConcurrency() async throws {
        let executor = OperationExecutor(maxConcurrentCount: 2)
        let active = Locked(0)
        let highWater = Locked(0)
        var done: [Promise<Void>] = []
        for _ in 0..<200 {
            done.append(Self.probe(executor) {
                let now = active.increment()
                highWater.withLock { $0 = max($0, now) }
                active.withLock { $0 -= 1 }
            }.1)
        }
        for promise in done { try await promise.value }
        #expect(highWater.current <= 2)
    }

    @Test("E3 ready operations start by priority, then in submission order; suspend holds them")
    func priorities() async throws {
        let executor = OperationExecutor(maxConcurrentCount: 1)
        executor.suspend()
        let order = Locked<[String]>([])
        let low = Self.probe(executor, priority: .low) { order.withLock { $0.append("low") } }.1
        let normal1 = Self.probe(executor) { order.withLock { $0.append("normal1") } }.1
        let high = Self.probe(executor, priority: .high) { order.withLock { $0.append("high") } }.1
        let normal2 = Self.probe(executor) { order.withLock { $0.append("normal2") } }.1
        #expect(executor.queuedCount == 4)
        #expect(order.current.isEmpty, "nothing starts while suspended")
        executor.resume()
        for promise in [low, normal1, high, normal2] { try await promise.value }
        #expect(order.current == ["high", "normal1", "normal2", "low"])
    }

    @Test("E3 an operation waits for its dependencies, whatever its priority")
    func dependencies() async throws {
        let executor = OperationExecutor(maxConcurrentCount: 4)
        executor.suspend()
        let order = Locked<[String]>([])
        let (first, firstDone) = Self.probe(executor, priority: .low) { order.withLock { $0.append("first") } }
        let (_, secondDone) = Self.probe(executor, priority: .veryHigh, dependencies: [first]) {
            order.withLock { $0.append("second") }
        }
        executor.resume()
        try await firstDone.value
        try await secondDone.value
        #expect(order.current == ["first", "second"])
    }

    @Test("E3 a cancelled pending operation never runs and releases its dependents")
    func cancelPending() async throws {
        let executor = OperationExecutor(maxConcurrentCount: 1)
        executor.suspend()
        let ran = Locked(false)
        let (victim, _) = Self.probe(executor) { ran.withLock { $0 = true } }
        let (_, dependentDone) = Self.probe(executor, dependencies: [victim]) {}
        #expect(victim.cancel())
        #expect(victim.isCancelled)
        executor.resume()
        try await dependentDone.value
        #expect(!ran.current)
        #expect(executor.queuedCount == 0)
    }

    @Test("E3 cancelAllOperations cancels everything pending, and queued handlers' promises")
    func cancelAll() async throws {
        let executor = OperationExecutor(maxConcurrentCount: 1)
        executor.suspend()
        let handler = Promise(value: 1).then(on: executor) { $0 + 1 }
        let ran = Locked(false)
        _ = executor.addOperation { ran.withLock { $0 = true } }
        // Registering on a settled promise hands the handler to the executor inside `then`.
        #expect(executor.queuedCount == 2)
        executor.cancelAllOperations()
        executor.resume()
        await #expect { try await handler.value } throws: { $0.isCancellation }
        #expect(executor.queuedCount == 0)
        #expect(!ran.current)
    }

    @Test("E3 a promise branch cancelled while its handler is queued removes that job")
    func cancelledBranchRemovesJob() async throws {
        let executor = OperationExecutor(maxConcurrentCount: 1)
        executor.suspend()
        let ran = Locked(false)
        let branch = Promise(value: 1).then(on: executor) { _ in ran.withLock { $0 = true } }
        #expect(executor.queuedCount == 1)
        branch.cancel()
        #expect(executor.queuedCount == 0, "the cancelled handler no longer counts as queued work")
        executor.resume()
        try await Self.probe(executor) {}.1.value
        #expect(!ran.current)
        await #expect { try await branch.value } throws: { $0.isCancellation }
    }
}
