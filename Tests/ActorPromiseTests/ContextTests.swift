import Testing
import ActorPromise
import Dispatch

actor Counter {
    var value = 0
    func add(_ amount: Int) -> Int {
        value += amount
        return value
    }
}

@Suite("R9 contexts, E5 pool, blocking waits")
struct ContextTests {
    @Test("E5 the global pool has one thread per core (at least two)")
    func poolSize() {
        #expect(WorkerPool.global.threadCount == max(2, onlineCores()))
    }

    @Test("E5 a chain on the global pool continues on the same worker instead of hopping")
    func chainLocality() async throws {
        let threads = Locked<Set<UInt>>([])
        let (root, resolver) = Promise<Int>.pending()
        var tail = root
        for _ in 0..<100 {
            tail = tail.then { value in
                threads.withLock { _ = $0.insert(currentThreadID()) }
                return value + 1
            }
        }
        resolver.fulfill(0)
        #expect(try await tail.value == 100)
        #expect(threads.current.count == 1)
    }

    @Test("R9 then(isolatedTo:) runs the handler isolated to the actor; a rejection skips it")
    func isolatedTo() async throws {
        let counter = Counter()
        let total = try await Promise(value: 5).then(isolatedTo: counter) { counter, value in counter.add(value) }.value
        #expect(total == 5)
        let skipped = Promise<Int>(error: TestError(id: 1)).then(isolatedTo: counter) { counter, value in counter.add(value) }
        await #expect(throws: TestError(id: 1)) { try await skipped.value }
        #expect(await counter.value == 5)
    }

    @Test("a blocking wait from a plain thread returns the value; a timeout is reported")
    func blockingWait() throws {
        let (promise, resolver) = Promise<Int>.pending()
        WorkerPool.global.submit(ClosureWorkItem { resolver.fulfill(9) })
        #expect(try promise.wait(timeout: hangGuard) == 9)
        let (never, _keep) = Promise<Int>.pending()
        #expect { try never.wait(timeout: .milliseconds(10)) } throws: { ($0 as? PromiseError)?.code == .timedOut }
        _ = _keep
    }

    @Test("waiting on a pool thread or a serial queue is reported, not deadlocked")
    func waitOnOwnExecutor() async throws {
        let queue = SerialQueue(label: "waiter")
        let (pending, _keep) = Promise<Int>.pending()
        let fromQueue = Promise<Void>(value: ()).then(on: queue) { _ in
            do { _ = try pending.wait() ; return "waited" } catch { return "\((error as? PromiseError)?.code ?? .cancelled)" }
        }
        #expect(try await fromQueue.value == "wouldDeadlock")
        let message = Promise<Void>(value: ()).then(on: queue) { _ in
            do { _ = try pending.wait(); return "" } catch { return "\(error)" }
        }
        // E5: the message names the context the caller is on, not the pool thread under it.
        #expect(try await message.value.contains("SerialQueue 'waiter'"))
        let fromPool = Promise<Void>(value: ()).then(on: .global) { _ in
            do { _ = try pending.wait() ; return "waited" } catch { return "\((error as? PromiseError)?.code ?? .cancelled)" }
        }
        #expect(try await fromPool.value == "wouldDeadlock")
        _ = _keep
    }
}

@Suite("E5 a blocking wait on the main thread")
struct MainThreadWaitTests {
    @Test("E5 wait() in a main-queue block runs main-context links of the chain instead of deadlocking")
    func mainThreadWait() async throws {
        let (root, resolver) = Promise<Int>.pending()
        let chain = root.then { $0 + 1 }.then(on: .main) { value -> Int in
            #expect(MainContext.isMainThread)
            return value * 10
        }.then { $0 + 2 }
        WorkerPool.global.submit(ClosureWorkItem { resolver.fulfill(1) })
        // Exclusive: while it waits, the main thread runs other tests' main-context handlers too.
        let result = try await AsyncMutex.mainThread.withLock {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Int, any Error>) in
                DispatchQueue.main.async {
                    continuation.resume(with: Result { try chain.wait(timeout: hangGuard) })
                }
            }
        }
        #expect(result == 22)
    }

    @Test("E5 wait() from main-actor async code throws wouldDeadlock at once instead of blocking the main actor")
    @MainActor
    func mainActorAsyncWait() async throws {
        let mainActorWork = Promise { await MainActor.run { 42 } }
        let start = ContinuousClock.now
        #expect { try mainActorWork.wait(timeout: .seconds(30)) } throws: { error in
            (error as? PromiseError)?.code == .wouldDeadlock && "\(error)".contains("main-actor async code")
        }
        #expect(ContinuousClock.now - start < .seconds(5), "refused at once, not at the timeout")
        #expect(try await mainActorWork.value == 42, "the work itself is not disturbed")
    }

    @Test("E5 wait() inside a main-context handler is refused and names the context")
    func insideMainHandler() async throws {
        let (pending, keep) = Promise<Int>.pending()
        let outcome = Promise(value: 1).then(on: .main) { _ -> String in
            do { _ = try pending.wait(); return "waited" } catch { return "\(error)" }
        }
        let message = try await outcome.value
        #expect(message.contains("wouldDeadlock") && message.contains("main context"), "\(message)")
        _ = keep
    }
}

func onlineCores() -> Int { Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))) }
