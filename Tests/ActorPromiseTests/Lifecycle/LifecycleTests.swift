import Testing
import Foundation
import ActorPromise

/// An actor whose executor is a serial queue it owns, as an app would write it.
actor QueueBound {
    private let queue = SerialQueue(label: "actor")
    nonisolated var unownedExecutor: UnownedSerialExecutor { queue.asUnownedSerialExecutor() }
    var hits = 0
    func hit() -> Int { hits += 1; return hits }
}

@Suite("L1 releasing contexts with work pending")
struct ReleaseTests {
    /// The abandonments these tests provoke are recorded, not printed as warnings.
    init() { AbandonmentLog.install() }

    @Test("L1 serial queues released with work queued run that work and do not crash")
    func serialQueues() async throws {
        let done = Countdown(200 * 5)
        for index in 0..<200 {
            let queue = SerialQueue(label: "q\(index)")
            for _ in 0..<5 { queue.async { done.tick() } }
        }
        try await done.wait()
    }

    @Test("L1 a serial queue released while its item runs finishes the item and the rest")
    func serialQueueRunning() async throws {
        let gate = Gate(), started = Countdown(1), done = Countdown(3)
        do {
            let queue = SerialQueue(label: "running")
            queue.async { started.tick(); gate.wait(); done.tick() }
            queue.async { done.tick() }
            queue.async { done.tick() }
        }
        try await started.wait()
        gate.open()
        try await done.wait()
    }

    @Test("L1 a released serial queue holds nothing once its work has run")
    func serialQueueFreed() async throws {
        try await expectRelease { object in
            let done = Countdown(1)
            let queue = SerialQueue(label: "freed")
            queue.async { [object] in _ = object; done.tick() }
            try await done.wait()
        }
    }

    @Test("L1 actors on their own serial queue, released right after their last job, never crash")
    func actorsOnReleasedQueues() async throws {
        for _ in 0..<2_000 {
            let actor = QueueBound()
            #expect(await actor.hit() == 1)
        }
    }

    @Test("L1 concurrent queues released with work and barriers queued run that work")
    func concurrentQueues() async throws {
        let done = Countdown(200 * 4)
        for index in 0..<200 {
            let queue = ConcurrentQueue(label: "c\(index)", width: 2)
            queue.async { done.tick() }
            queue.async(barrier: true) { done.tick() }
            queue.async { done.tick() }
            queue.async { done.tick() }
        }
        try await done.wait()
    }

    @Test("L1 operation executors released with operations queued run them, dependencies included")
    func operationExecutors() async throws {
        let done = Countdown(200 * 3)
        for index in 0..<200 {
            let executor = OperationExecutor(label: "o\(index)", maxConcurrentCount: 1)
            let first = executor.addOperation { done.tick() }
            executor.addOperation(priority: .high, dependencies: [first]) { done.tick() }
            executor.addOperation(priority: .low) { done.tick() }
        }
        try await done.wait()
    }

    @Test("L1 a suspended operation executor released by its last user resumes and runs its work")
    func suspendedOperationExecutor() async throws {
        let done = Countdown(10)
        do {
            let executor = OperationExecutor(label: "suspended")
            executor.suspend()
            for _ in 0..<10 { executor.addOperation { done.tick() } }
        }
        try await done.wait()
    }

    @Test("L1 promise handlers queued on released contexts still run")
    func handlersOnReleasedContexts() async throws {
        let (root, resolver) = Promise<Int>.pending()
        var results: [Promise<Int>] = []
        do {
            let contexts: [any ExecutionContext] = [
                SerialQueue(), ConcurrentQueue(), OperationExecutor(maxConcurrentCount: 2), RunLoopThread(),
            ]
            for context in contexts { results.append(root.then(on: context) { $0 + 1 }) }
        }
        resolver.fulfill(1)
        for result in results { #expect(try await result.value == 2) }
    }
}

@Suite("E3 dependencies across operation executors")
struct CrossExecutorDependencyTests {
    /// The abandonments these tests provoke are recorded, not printed as warnings.
    init() { AbandonmentLog.install() }

    @Test("E3 an operation may depend on an operation of another executor")
    func crossExecutor() async throws {
        let first = OperationExecutor(label: "first"), second = OperationExecutor(label: "second")
        let order = Locked<[Int]>([])
        let done = Countdown(2)
        first.suspend()
        let upstream = first.addOperation { order.append(1); done.tick() }
        second.addOperation(dependencies: [upstream]) { order.append(2); done.tick() }
        #expect(second.queuedCount == 1)
        first.resume()
        try await done.wait()
        #expect(order.current == [1, 2])
    }

    @Test("E3 cancelling a dependency on another executor releases its dependents")
    func crossExecutorCancel() async throws {
        let first = OperationExecutor(label: "first"), second = OperationExecutor(label: "second")
        let ran = Countdown(1)
        first.suspend()
        let upstream = first.addOperation {}
        second.addOperation(dependencies: [upstream]) { ran.tick() }
        first.cancelAllOperations()
        try await ran.wait()
        #expect(upstream.isCancelled)
    }

    @Test("E3 a dependency that already ended does not hold its dependent")
    func endedDependency() async throws {
        let first = OperationExecutor(label: "first"), second = OperationExecutor(label: "second")
        let ran = Countdown(1), finished = Countdown(1)
        let upstream = first.addOperation {}
        // An operation that depends on it starts only once it has finished.
        first.addOperation(dependencies: [upstream]) { finished.tick() }
        try await finished.wait()
        #expect(upstream.isFinished)
        second.addOperation(dependencies: [upstream]) { ran.tick() }
        try await ran.wait()
    }
}

@Suite("L3 run-loop threads end with their last reference")
struct RunLoopLifetimeTests {
    /// The abandonments these tests provoke are recorded, not printed as warnings.
    init() { AbandonmentLog.install() }

    @Test("L3 a released run-loop thread runs what was queued, then its thread exits")
    func releasedLoopDrainsAndExits() async throws {
        // The loops' threads are counted by their name, so threads that other tests or the
        // system start meanwhile (dispatch's workers grow under load) do not count.
        let kept = RunLoopThread(name: "L3kept")
        let started = Countdown(1)
        kept.async { started.tick() }
        try await started.wait()
        #if os(Linux)
        #expect(threadCount(named: "L3kept") == 1, "a live loop's thread is seen by its name")
        let pool = WorkerPool(threadCount: 1, name: "ActorPromise.L3pool")
        let pooled = Countdown(1)
        pool.submit(ClosureWorkItem { pooled.tick() })
        try await pooled.wait()
        #expect(threadCount(named: "L3pool.0") == 1, "a long library name drops its prefix")
        #endif
        let done = Countdown(50 * 3)
        for index in 0..<50 {
            let loop = RunLoopThread(name: "L3released\(index)")
            for _ in 0..<3 { loop.async { done.tick() } }
        }
        try await done.wait()
        #if os(Linux)
        #expect(await threadCount(named: "L3released", settlesAtMost: 0), "released loops left their threads running")
        #endif
        withExtendedLifetime(kept) {}
    }

    @Test("L3 a worker pool dropped right after it is made keeps its threads and runs what it got")
    func droppedPool() async throws {
        // A pool lives as long as the process: its threads hold it. Before they did, a pool
        // released before its threads started crashed them on their first access to it.
        try await AsyncMutex.memoryHeavy.withLock { () async throws in
            let done = Countdown(4)
            for index in 0..<4 {
                WorkerPool(threadCount: 1, name: "dropped\(index)").submit(ClosureWorkItem { done.tick() })
            }
            _ = WorkerPool(threadCount: 1, name: "dropped.idle")
            try await done.wait()
        }
    }

    @Test("L3 a program-driven loop released with handlers queued rejects them as abandoned")
    func drivenLoopReleased() async throws {
        let (root, resolver) = Promise<Int>.pending()
        let result: Promise<Int>
        do {
            let loop = RunLoopThread(name: "driven", startsThread: false)
            result = root.then(on: loop) { $0 + 1 }
            resolver.fulfill(1)
            // The handler is queued on the loop now; the loop's last reference is the link's.
        }
        guard case .failure(let error) = await result.outcome else {
            Issue.record("a handler queued on a released, undriven loop ran or was lost")
            return
        }
        #expect((error as? PromiseError)?.code == .abandoned)
        #expect("\(error)".contains("handler that was to settle this promise was dropped"), "says what happened: \(error)")
        #expect(!"\(error)".contains("resolver was released"))
    }
}

@Suite("L2 timers free their memory when their promise settles")
struct TimerLifetimeTests {
    /// The abandonments these tests provoke are recorded, not printed as warnings.
    init() { AbandonmentLog.install() }

    @Test("L2 a cancelled timer releases its captures at once, not at its deadline")
    func cancelledTimerReleases() async throws {
        try await expectRelease { object in
            let action = TimerThread.shared.schedule(after: .seconds(3600)) { [object] in _ = object }
            #expect(action.cancel())
        }
    }

    @Test("L2 a one-hour timeout on a promise that settles at once holds nothing afterwards")
    func timeoutOnSettledPromise() async throws {
        try await expectRelease { object in
            let (promise, resolver) = Promise<Tracked>.pending()
            let guarded = promise.timeout(after: .seconds(3600))
            resolver.fulfill(object)
            _ = try await guarded.value
        }
    }

    @Test("L2 a cancelled one-hour delay holds nothing afterwards")
    func cancelledDelay() async throws {
        try await expectRelease { object in
            let (input, resolver) = Promise<Tracked>.pending()
            let delayed = input.delay(.seconds(3600))
            // The delay observes its input inline: the fulfil schedules its timer.
            resolver.fulfill(object)
            #expect(delayed.isPending)
            delayed.cancel()
            _ = await delayed.outcome
        }
    }

    @Test("L2 timers of settled promises leave the timer thread's queue")
    func timerQueueShrinks() async throws {
        let before = TimerThread.shared.pendingCount
        for _ in 0..<10_000 {
            let (promise, resolver) = Promise<Int>.pending()
            let guarded = promise.timeout(after: .seconds(3600))
            resolver.fulfill(1)
            _ = try await guarded.value
        }
        // Other tests may hold a few short timers of their own meanwhile.
        #expect(TimerThread.shared.pendingCount < before + 100)
    }

    @Test("L2 a manual scheduler and a clock scheduler drop cancelled actions")
    func otherSchedulers() async throws {
        let manual = ManualScheduler()
        let action = manual.schedule(after: .seconds(10)) {}
        #expect(manual.pendingCount == 1)
        action.cancel()
        #expect(manual.pendingCount == 0)

        try await expectRelease { object in
            let sleeping = ClockScheduler(ContinuousClock()).schedule(after: .seconds(3600)) { [object] in _ = object }
            sleeping.cancel()
        }
    }
}

/// The number of threads of this process (Linux: entries of /proc/self/task).
func threadCount() -> Int {
    #if os(Linux)
    (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? 0
    #else
    0
    #endif
}

/// The number of this process's threads whose name starts with `prefix` (Linux: the `comm` of the
/// entries of /proc/self/task; a thread's name is cut to 15 bytes there).
func threadCount(named prefix: String) -> Int {
    #if os(Linux)
    let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
    return tasks.count { task in
        let name = (try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)) ?? ""
        return name.hasPrefix(prefix)
    }
    #else
    return 0
    #endif
}

/// Waits (polling, up to 10 s) for the threads named with `prefix` to be at most `limit`.
func threadCount(named prefix: String, settlesAtMost limit: Int) async -> Bool {
    await settles(atMost: limit) { threadCount(named: prefix) }
}

/// Waits (polling, up to 10 s) for exiting threads to be gone; returns whether the count came down
/// to `limit`.
func threadCount(settlesAtMost limit: Int) async -> Bool {
    await settles(atMost: limit) { threadCount() }
}

/// Polls `count` (every 10 ms, up to 10 s) until it is at most `limit`; returns whether it came
/// down. Thread exit has no event to wait for, so polling is the deterministic wait here.
func settles(atMost limit: Int, _ count: () -> Int) async -> Bool {
    for _ in 0..<1_000 {
        if count() <= limit { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return count() <= limit
}
