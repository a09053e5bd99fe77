import Testing
import ActorPromise

/// A callback API for the tests: completes when told to, or never, or twice.
final class FakeOperation: Sendable {
    private let lock = Locked<(completion: (@Sendable (Result<Int, any Error>) -> Void)?, cancelled: Bool)>((nil, false))

    func start(_ completion: @escaping @Sendable (Result<Int, any Error>) -> Void) {
        lock.withLock { $0.completion = completion }
    }
    func complete(_ result: Result<Int, any Error>) { lock.current.completion?(result) }
    func cancel() { lock.withLock { $0.cancelled = true } }
    func drop() { lock.withLock { $0.completion = nil } }
    var isCancelled: Bool { lock.current.cancelled }
}

@Suite("B1-B5 bridge")
struct BridgeTests {
    /// The abandonments these tests provoke are recorded, not printed as warnings.
    init() { AbandonmentLog.install() }

    @Test("B1 await returns the value or throws the rejection")
    func awaitValue() async throws {
        let (promise, resolver) = Promise<Int>.pending()
        WorkerPool.global.submit(ClosureWorkItem { resolver.fulfill(3) })
        #expect(try await promise.value == 3)
        await #expect(throws: TestError(id: 1)) { try await Promise<Int>(error: TestError(id: 1)).value }
        #expect(try await promise.outcome.get() == 3)
    }

    @Test("B2 an await cancelled before settlement throws at once; the promise and other awaiters go on")
    func cancelDuring() async throws {
        let (promise, resolver) = Promise<Int>.pending()
        // Another waiter, registered before the cancel (a Task's await may start later), so the
        // promise keeps its interest (R7, B7).
        let waiter = promise.then(on: .inline) { $0 }
        let cancelled = Task { try await promise.value }
        let other = Task { try await waiter.value }
        cancelled.cancel()
        await #expect { try await cancelled.value } throws: { $0.isCancellation }
        #expect(promise.isPending && !promise.isCancelled)
        resolver.fulfill(5)
        #expect(try await other.value == 5)
    }

    @Test("B2 an await in an already cancelled task throws the cancellation error promptly")
    func cancelBefore() async throws {
        let (promise, _keep) = Promise<Int>.pending()
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await promise.value
        }
        await #expect { try await task.value } throws: { $0.isCancellation }
        _ = _keep
    }

    @Test("B2 cancelling after settlement changes nothing")
    func cancelAfter() async throws {
        let promise = Promise(value: 8)
        let task = Task { () -> Int in
            let value = try await promise.value
            withUnsafeCurrentTask { $0?.cancel() }
            return value
        }
        #expect(try await task.value == 8)
    }

    @Test("B2 10,000 concurrent awaiters on one promise all get the value")
    func manyAwaiters() async throws {
        let (promise, resolver) = Promise<Int>.pending()
        let sum = await withTaskGroup(of: Int.self) { group in
            for index in 0..<10_000 {
                group.addTask { (try? await promise.value) ?? -1_000_000 }
                if index == 5_000 { resolver.fulfill(1) }
            }
            return await group.reduce(0, +)
        }
        #expect(sum == 10_000)
    }

    @Test("B2 cancellation racing fulfilment: each await returns the value or throws cancellation, never hangs")
    func cancellationRacingFulfilment() async throws {
        for _ in 0..<500 {
            let (promise, resolver) = Promise<Int>.pending()
            let task = Task { try await promise.value }
            WorkerPool.global.submit(ClosureWorkItem { resolver.fulfill(1) })
            task.cancel()
            switch await task.result {
            case .success(let value):
                #expect(value == 1)
                #expect(try await promise.value == 1)
            case .failure(let error):
                #expect(error.isCancellation)
                // The await was the only waiter: the promise is either fulfilled (the fulfil came
                // first) or cancelled with it (B7), never left pending.
                switch await promise.outcome {
                case .success(let value): #expect(value == 1)
                case .failure(let error): #expect(error.isCancellation)
                }
            }
        }
    }

    @Test("B3 an async closure runs in a task; cancelling the promise cancels the task")
    func asyncClosure() async throws {
        #expect(try await Promise { 21 * 2 }.value == 42)
        let sawCancellation = Locked(false)
        let (started, startedResolver) = Promise<Void>.pending()
        let (finished, finishedResolver) = Promise<Void>.pending()
        let work = Promise<Int> {
            startedResolver.fulfill()
            // Waits for the cancellation itself, not for time to pass: sleep throws once cancelled.
            do { try await Task.sleep(for: .seconds(600)) } catch { sawCancellation.withLock { $0 = Task.isCancelled } }
            finishedResolver.fulfill()
            return 0
        }
        try await started.value
        work.cancel()
        await #expect { try await work.value } throws: { $0.isCancellation }
        try await finished.value
        #expect(sawCancellation.current)
    }

    @Test("B3 the task can prefer a library executor")
    func asyncClosureOnExecutor() async throws {
        let queue = SerialQueue(label: "b3")
        #expect(try await Promise(executor: queue) { queue.isCurrent }.value)
    }

    @Test("B4 result completions: a second call is ignored")
    func completionTwice() async throws {
        let operation = FakeOperation()
        let promise = Promise<Int> { resolver in operation.start(resolver.completion()) }
        operation.complete(.success(1))
        operation.complete(.success(2))
        operation.complete(.failure(TestError()))
        #expect(try await promise.value == 1)
    }

    @Test("B4 a completion that never comes surfaces as abandonment, not a hang")
    func completionNever() async throws {
        let operation = FakeOperation()
        let promise = Promise<Int> { resolver in operation.start(resolver.completion()) }
        operation.drop()
        await #expect { try await promise.value } throws: { ($0 as? PromiseError)?.code == .abandoned }
    }

    @Test("B4 the (T?, Error?) and (Error?) shapes")
    func otherShapes() async throws {
        let fulfilled = Promise<Int> { resolver in resolver.optionalCompletion(4, nil) }
        #expect(try await fulfilled.value == 4)
        let rejected = Promise<Int> { resolver in resolver.optionalCompletion(4, TestError(id: 2)) }
        await #expect(throws: TestError(id: 2)) { try await rejected.value }
        let empty = Promise<Int> { resolver in resolver.optionalCompletion(nil, nil) }
        await #expect(throws: CallbackError.missingValue) { try await empty.value }
        let done = Promise<Void> { resolver in resolver.errorCompletion(nil) }
        try await done.value
        let failed = Promise<Void> { resolver in resolver.errorCompletion(TestError(id: 3)) }
        await #expect(throws: TestError(id: 3)) { try await failed.value }
    }

    @Test("B4 withCompletion: value, second call ignored, dropped completion, cancellation forwarded")
    func withCompletionAdapter() async throws {
        let value = try await withCompletion { (resolver: Resolver<Int>) in
            let completion = resolver.completion()
            completion(.success(7))
            completion(.success(8))
        }
        #expect(value == 7)

        await #expect {
            try await withCompletion { (resolver: Resolver<Int>) in FakeOperation().start(resolver.completion()) }
        } throws: { ($0 as? PromiseError)?.code == .abandoned }

        let operation = FakeOperation()
        let (started, startedResolver) = Promise<Void>.pending()
        let task = Task {
            try await withCompletion { (resolver: Resolver<Int>) in
                operation.start(resolver.completion())
                resolver.onCancel { operation.cancel() }
                startedResolver.fulfill()
            }
        }
        try await started.value
        task.cancel()
        await #expect { try await task.value } throws: { $0.isCancellation }
        #expect(operation.isCancelled, "cancelling the awaiting task cancels the underlying operation")
    }

    @Test("B5 whenComplete hands out a Result, or a (value, error) pair")
    func whenComplete() async throws {
        let (seen, seenResolver) = Promise<String>.pending()
        Promise(value: 2).whenComplete { (result: Result<Int, any Error>) in seenResolver.fulfill("\(try! result.get())") }
        #expect(try await seen.value == "2")
        let (pair, pairResolver) = Promise<String>.pending()
        Promise<Int>(error: TestError(id: 4)).whenComplete { (value: Int?, error: (any Error)?) in
            pairResolver.fulfill("\(value.map(String.init) ?? "nil") \((error as? TestError)?.id ?? 0)")
        }
        #expect(try await pair.value == "nil 4")
    }

    @Test("B5 R2 whenComplete derives no promise and runs in its place among the handlers")
    func whenCompleteIsACallback() async throws {
        let (promise, resolver) = Promise<Int>.pending()
        let queue = SerialQueue(label: "b5.order")
        let order = Locked<[String]>([])
        let first = promise.then(on: queue) { _ in order.withLock { $0.append("then 1") } }
        let called = Countdown(1)
        promise.whenComplete(on: queue) { (result: Result<Int, any Error>) in
            order.withLock { $0.append("callback \(try! result.get())") }
            called.tick()
        }
        let last = promise.then(on: queue) { _ in order.withLock { $0.append("then 2") } }
        // Two derived promises and three observers: the callback is an observer, not a child.
        #expect(String(reflecting: promise).hasSuffix("3 observers, 2 children"))
        resolver.fulfill(7)
        try await first.value
        try await last.value
        try await called.wait()
        #expect(order.current == ["then 1", "callback 7", "then 2"])
    }

    @Test("values(of:) keeps input order; firstValue(of:) cancels the losers")
    func combinators() async throws {
        let (slow, slowResolver) = Promise<Int>.pending()
        let fast = Promise(value: 1)
        slowResolver.fulfill(2)
        #expect(try await Promise.values(of: [slow, fast]) == [2, 1])
        #expect(try await Promise<Int>.values(of: []) == [])

        let (loser, _keep) = Promise<Int>.pending()
        let winner = try await Promise.firstValue(of: [loser, Promise(value: 9)])
        #expect(winner == 9)
        #expect(loser.isCancelled)
        _ = _keep

        let (pending, _keep2) = Promise<Int>.pending()
        await #expect(throws: TestError(id: 6)) {
            try await Promise.values(of: [pending, Promise(error: TestError(id: 6))])
        }
        #expect(pending.isCancelled, "a rejection cancels the promises still pending")
        _ = _keep2
    }

    @Test("firstValue(of: []) throws an empty AggregateError instead of trapping, as any([]) rejects")
    func firstValueOfNothing() async throws {
        await #expect(throws: AggregateError.self) { try await Promise<Int>.firstValue(of: []) }
        do {
            _ = try await Promise<Int>.firstValue(of: [])
        } catch let error as AggregateError {
            #expect(error.errors.isEmpty)
        }
    }
}
