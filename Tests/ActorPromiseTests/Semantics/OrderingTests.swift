import Testing
import Dispatch
import ActorPromise

@Suite("R2 handlers of one promise run in registration order")
struct OrderingTests {
    static let serial = SerialQueue(label: "ordering")
    static let barriers = ConcurrentQueue(label: "ordering", width: 4)
    static let operations = OperationExecutor(label: "ordering", maxConcurrentCount: 1)
    static let loop = RunLoopThread(name: "ordering")
    /// Two threads for `concurrentByChoice` alone (pools live as long as the process).
    static let sideBySidePool = WorkerPool(threadCount: 2, name: "side-by-side")
    /// The default context and every serial context; the concurrent ones are excluded on purpose.
    static let contexts: [(String, any ExecutionContext)] = [
        ("global", WorkerPool.global), ("SerialQueue", serial), ("ConcurrentQueue barriers", barriers),
        ("OperationExecutor(1)", operations), ("RunLoopThread", loop), ("main", MainContext.shared),
    ]

    /// One run of ``registerInBatches(settleAfter:_:)`` on `context`; returns the order the
    /// handlers ran in.
    func run(on context: any ExecutionContext, settleAfter: Int) async throws -> [Int] {
        let order = Locked<[Int]>([])
        try await registerInBatches(settleAfter: settleAfter) { promise, index in
            promise.then(on: context) { _ in order.append(index) }
        }
        return order.current
    }

    @Test("R2 20 handlers registered before and after settlement from several threads run in order",
          arguments: Array(0..<contexts.count))
    func registrationOrder(contextIndex: Int) async throws {
        let (name, context) = Self.contexts[contextIndex]
        for round in 0..<500 {
            let settleAfter = round % 5
            let order = try await run(on: context, settleAfter: settleAfter)
            if order != Array(0..<20) {
                Issue.record("\(name), settled after batch \(settleAfter), round \(round): \(order)")
                return
            }
        }
    }

    @Test("R2 under load: a fan-out on the pool keeps its order while other work runs")
    func underLoad() async throws {
        // Two producers keep the pool busy with fan-outs of their own, each waiting for its last
        // fan-out before the next, so the load stays bounded.
        let stop = Locked(false)
        let noise = Countdown(2)
        for _ in 0..<2 {
            Task.detached {
                while !stop.current {
                    let (p, r) = Promise<Int>.pending()
                    let last = (0..<8).map { _ in p.then { $0 + 1 } }.last!
                    r.fulfill(1)
                    _ = await last.outcome
                }
                noise.tick()
            }
        }
        for round in 0..<1_000 {
            let order = try await run(on: WorkerPool.global, settleAfter: round % 5)
            if order != Array(0..<20) {
                Issue.record("round \(round): \(order)")
                break
            }
        }
        stop.withLock { $0 = true }
        try await noise.wait()
    }

    @Test("R2 a concurrent context chosen for it runs handlers of one promise side by side")
    func concurrentByChoice() async throws {
        // The handlers block while they wait for each other, so they get a pool of their own:
        // blocking the shared pool's threads would stall every other suite running beside this one.
        let queue = ConcurrentQueue(label: "side by side", width: 2, pool: Self.sideBySidePool)
        let (promise, resolver) = Promise<Int>.pending()
        let inside = Locked(0), overlapped = Locked(false)
        let gate = Gate()
        let both = Countdown(2)
        for _ in 0..<2 {
            promise.then(on: queue.concurrent) { _ in
                if inside.withLock({ $0 += 1; return $0 }) == 2 { overlapped.withLock { $0 = true }; gate.open() }
                both.tick()
                // Bounded, so a context that ran them one at a time fails the test instead of hanging.
                _ = gate.wait(until: HangDeadline())
            }
        }
        resolver.fulfill(1)
        try await both.wait()
        #expect(overlapped.current)
    }
}
