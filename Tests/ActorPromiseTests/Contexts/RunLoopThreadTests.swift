import Testing
import ActorPromise

actor LoopBound {
    let loop: RunLoopThread
    var hits = 0
    init(loop: RunLoopThread) { self.loop = loop }
    nonisolated var unownedExecutor: UnownedSerialExecutor { loop.asUnownedSerialExecutor() }
    func hit() -> Bool {
        hits += 1
        return loop.isCurrent
    }
}

@Suite("E4 run-loop threads and main")
struct RunLoopThreadTests {
    /// The abandonments these tests provoke are recorded, not printed as warnings.
    init() { AbandonmentLog.install() }

    @Test("E4 handlers on a run-loop thread run on that thread, in order")
    func dedicatedThread() async throws {
        let loop = RunLoopThread(name: "worker")
        defer { loop.stop() }
        let (root, resolver) = Promise<Int>.pending()
        let order = Locked<[Int]>([])
        let onLoop = Locked(true)
        var children: [Promise<Void>] = []
        for index in 0..<50 {
            children.append(root.then(on: loop) { _ in
                if !loop.isCurrent { onLoop.withLock { $0 = false } }
                order.append(index)
            })
        }
        resolver.fulfill(0)
        for child in children { try await child.value }
        #expect(order.current == Array(0..<50))
        #expect(onLoop.current)
    }

    @Test("E4 run(until:) drives a loop from the calling thread")
    func drivenLoop() throws {
        let loop = RunLoopThread(name: "driven", startsThread: false)
        let (root, resolver) = Promise<Int>.pending()
        let result = root.then(on: loop) { $0 * 3 }
        let ran = Locked(false)
        _ = result.then(on: loop) { _ in ran.withLock { $0 = true } }
        resolver.fulfill(7)
        loop.run(until: { ran.current })
        #expect(result.result.map { try? $0.get() } == 21)
    }

    @Test("E4 an actor can live on a run-loop thread")
    func actorOnLoop() async {
        let loop = RunLoopThread(name: "actor")
        defer { loop.stop() }
        let bound = LoopBound(loop: loop)
        #expect(await bound.hit())
        #expect(await bound.hits == 1)
    }

    @Test("E4 stopping with work queued discards the handlers: their promises are rejected as abandoned")
    func stopWithQueuedWork() async throws {
        let loop = RunLoopThread(name: "stopping", startsThread: false)
        let queued = Promise(value: 1).then(on: loop) { $0 + 1 }
        #expect(loop.queuedCount == 1)
        loop.stop()
        await #expect { try await queued.value } throws: { ($0 as? PromiseError)?.code == .abandoned }
        let late = Promise(value: 1).then(on: loop) { $0 + 1 }
        await #expect { try await late.value } throws: { ($0 as? PromiseError)?.code == .abandoned }
    }

    @Test("E4 then(on: .main) runs on the main thread, as MainActor code does")
    @MainActor
    func mainContext() async throws {
        let onMain = try await Promise(value: 1).then(on: .main) { _ in MainContext.shared.isCurrent }.value
        #expect(onMain)
        let viaActor = try await Promise(value: 2).then(isolatedTo: MainActor.shared) { _, value in value * 2 }.value
        #expect(viaActor == 4)
    }
}
