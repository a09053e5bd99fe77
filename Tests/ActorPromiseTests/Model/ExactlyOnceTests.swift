import Testing
import ActorPromiseTesting
import ActorPromise

@Suite("Reliability: exactly once")
struct ExactlyOnceTests {
    static let serial = SerialQueue(label: "exactly-once")
    static let concurrent = ConcurrentQueue(label: "exactly-once", width: 3)
    static let operations = OperationExecutor(label: "exactly-once", maxConcurrentCount: 2)
    static let loop = RunLoopThread(name: "exactly-once")
    static let contexts: [any ExecutionContext] = [WorkerPool.global, InlineContext.shared, serial, concurrent, concurrent.concurrent, operations, loop, MainContext.shared]

    enum Step { case then(context: Int), fulfill, reject, cancelRoot, cancelChild(Int), await }

    @Test("every handler runs at most once, and exactly once unless its branch was cancelled; nothing hangs",
          arguments: [UInt64(1), 2, 3, 4, 5, 6, 7, 8])
    func randomizedSchedules(seedBase: UInt64) async throws {
        for round in 0..<25 {
            let seed = seedBase &* 1_000 &+ UInt64(round)
            var random = SplitMix64(state: seed)
            let steps: [Step] = (0..<40).map { _ in
                switch Int.random(in: 0..<100, using: &random) {
                case 0..<60: .then(context: Int.random(in: 0..<Self.contexts.count, using: &random))
                case 60..<66: .fulfill
                case 66..<70: .reject
                case 70..<73: .cancelRoot
                case 73..<85: .cancelChild(Int.random(in: 0..<40, using: &random))
                default: .await
                }
            }
            try await run(steps, seed: seed)
        }
    }

    private func run(_ steps: [Step], seed: UInt64) async throws {
        let (root, resolver) = Promise<Int>.pending()
        let children = Locked<[(promise: Promise<Int>, calls: Locked<Int>)]>([])
        await withTaskGroup(of: Void.self) { group in
            for step in steps {
                group.addTask {
                    switch step {
                    case .then(let index):
                        let calls = Locked(0)
                        let child = root.then(on: Self.contexts[index], onFulfilled: { value -> Int in
                            calls.increment()
                            return value
                        }, onRejected: { error -> Int in
                            calls.increment()
                            throw error
                        })
                        children.withLock { $0.append((child, calls)) }
                    case .fulfill: resolver.fulfill(1)
                    case .reject: resolver.reject(TestError())
                    case .cancelRoot: root.cancel()
                    case .cancelChild(let index):
                        let child = children.withLock { $0.indices.contains(index) ? $0[index].promise : nil }
                        child?.cancel()
                    case .await: _ = await root.outcome
                    }
                }
            }
            // Settles the root if no step did, racing the steps; awaiting steps need it.
            group.addTask { resolver.fulfill(2) }
        }
        for (child, calls) in children.current {
            _ = await child.outcome // every derived promise settles: no hang
            let count = calls.current
            #expect(count <= 1, "a handler ran \(count) times (seed \(seed))")
            if !child.isCancelled {
                #expect(count == 1, "a handler of a branch that was not cancelled did not run (seed \(seed))")
            }
        }
    }
}
