import Testing
import Foundation
import ActorPromise
import Dispatch
import Synchronization

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

    @Test("E5 a chain that never ends on a pool does not starve a job submitted to it meanwhile")
    func endlessChainYields() async throws {
        // One thread, so that the chain and the job compete for it.
        let pool = Self.onePool
        let progress = ChainProgress()
        @Sendable func link(_ value: Int) -> Promise<Int> {
            progress.linked()
            if progress.stop.load(ordering: .relaxed) { return Promise(value: value) }
            return Promise(value: value + 1).then(on: pool) { link($0) }
        }
        let (started, start) = Promise<Void>.pending()
        let chain = started.then(on: pool) { link(0) }
        start.fulfill(())
        // Off the pool, until the chain is well past one budget of follow-ups in a row.
        try await progress.farEnough.guardedAgainstHang().value
        let ran = Promise<Void> { resolver in
            pool.submit(ClosureWorkItem { progress.stop.store(true, ordering: .relaxed); resolver.fulfill(()) })
        }
        try await ran.guardedAgainstHang().value
        let end = try await chain.guardedAgainstHang().value
        #expect(end >= 4 * WorkerPool.followUpBudget)
    }

    /// How far `endlessChainYields`'s chain got, and the job's word to stop it.
    final class ChainProgress: Sendable {
        let links = Atomic<Int>(0)
        let stop = Atomic<Bool>(false)
        /// Fulfilled when the chain has run four budgets of follow-ups.
        let farEnough: Promise<Void>
        private let reached: Resolver<Void>

        init() { (farEnough, reached) = Promise<Void>.pending() }

        func linked() {
            if links.add(1, ordering: .relaxed).newValue == 4 * WorkerPool.followUpBudget { reached.fulfill() }
        }
    }

    /// A pool of one thread for `endlessChainYields` (pools live as long as the process).
    static let onePool = WorkerPool(threadCount: 1, name: "one")

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
        #expect(try promise.guardedAgainstHang().wait() == 9)
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

/// E5 on Foundation's queues: a handler on a concurrent queue holds nothing another thread needs
/// to settle a promise, so `wait()` there waits, as `DispatchQueue.sync` from such a block does;
/// a serial queue is held by the waiting handler, so `wait()` there is refused.
@Suite("E5 a blocking wait on Foundation's queues")
struct FoundationQueueWaitTests {
    /// A handler on `context` that waits for a promise another thread settles once the handler
    /// has started; returns what the wait returned, or the error's text.
    static func waitInside(_ context: any ExecutionContext) async throws -> String {
        let (other, resolver) = Promise<Int>.pending()
        let started = Gate()
        // Settled from a thread of its own once the handler has started, with nothing in between
        // that needs the test's task or Dispatch's global queue: the waiting handler holds one of
        // that queue's threads, and on Linux Swift's cooperative pool, which runs the test's
        // task, draws on the same threads — a fulfil that waited for either could wait until the
        // wait timed out. Usually after the handler blocked, which is what this tests; the
        // outcome is the same either way.
        Thread {
            guard started.wait(until: HangDeadline()) else { return resolver.fulfill(-1) }
            Thread.sleep(forTimeInterval: 0.02)
            resolver.fulfill(5)
        }.start()
        let result = Promise(value: ()).then(on: context) { _ -> String in
            started.open()
            do { return "waited for \(try other.guardedAgainstHang().wait())" } catch { return "\(error)" }
        }
        return try await result.value
    }

    @Test("E5 wait() in a handler on DispatchQueue.global() waits for another thread's fulfil")
    func globalQueue() async throws {
        #expect(try await Self.waitInside(DispatchQueue.global()) == "waited for 5")
        #expect(try await Self.waitInside(DispatchQueue.global(qos: .utility)) == "waited for 5")
    }

    @Test("E5 wait() waits in a concurrent queue's concurrentContext and in a wide OperationQueue")
    func concurrentQueues() async throws {
        let concurrent = DispatchQueue(label: "wait.concurrent", attributes: .concurrent)
        #expect(try await Self.waitInside(concurrent.concurrentContext) == "waited for 5")
        let wide = OperationQueue()
        wide.maxConcurrentOperationCount = 4
        #expect(try await Self.waitInside(wide) == "waited for 5")
    }

    @Test("E5 wait() is refused on a serial DispatchQueue and a serial OperationQueue, naming the queue and what to do")
    func serialQueues() async throws {
        let serial = DispatchQueue(label: "wait.serial")
        let message = try await Self.waitInside(serial)
        #expect(message.contains("wouldDeadlock") && message.contains("DispatchQueue 'wait.serial'"), "\(message)")
        #expect(message.contains("await") && message.contains("whenComplete"), "\(message)")
        let one = OperationQueue()
        one.name = "wait.one"
        one.maxConcurrentOperationCount = 1
        let fromOperation = try await Self.waitInside(one)
        #expect(fromOperation.contains("wouldDeadlock") && fromOperation.contains("OperationQueue 'wait.one'"), "\(fromOperation)")
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
                    continuation.resume(with: Result { try chain.guardedAgainstHang().wait() })
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
