import Testing
import ActorPromise

@Suite("Executors under load")
struct ExecutorStressTests {
    @Test("E1 100,000 jobs from 4 producers over 25 serial queues keep per-producer FIFO order per queue")
    func manyProducersManyQueues() async throws {
        let queues = (0..<25).map { SerialQueue(label: "stress\($0)") }
        let producers = 4
        let perQueue = 1_000
        // seen[queue][producer] = last sequence number observed; written only on that queue.
        let seen = queues.map { _ in Locked([Int](repeating: -1, count: producers)) }
        let violations = Locked(0)
        let remaining = Locked(queues.count * producers * perQueue)
        let (done, resolver) = Promise<Void>.pending()
        await withTaskGroup(of: Void.self) { group in
            for producer in 0..<producers {
                group.addTask {
                    for sequence in 0..<perQueue {
                        for (index, queue) in queues.enumerated() {
                            queue.async {
                                let inOrder = seen[index].withLock { last -> Bool in
                                    defer { last[producer] = sequence }
                                    return last[producer] == sequence - 1
                                }
                                if !inOrder { violations.increment() }
                                if remaining.withLock({ $0 -= 1; return $0 }) == 0 { resolver.fulfill() }
                            }
                        }
                    }
                }
            }
        }
        try await done.value
        #expect(violations.current == 0)
    }

    @Test("E2 barriers exclude every other job under load")
    func barriersUnderLoad() async throws {
        let queue = ConcurrentQueue(label: "stress", width: 4)
        let active = Locked(0)
        let overlaps = Locked(0)
        let remaining = Locked(2_000)
        let (done, resolver) = Promise<Void>.pending()
        @Sendable func finished() { if remaining.withLock({ $0 -= 1; return $0 }) == 0 { resolver.fulfill() } }
        await withTaskGroup(of: Void.self) { group in
            for producer in 0..<4 {
                group.addTask {
                    for index in 0..<500 {
                        let barrier = (index + producer) % 10 == 0
                        queue.async(barrier: barrier) {
                            let now = active.increment()
                            if barrier && now != 1 { overlaps.increment() }
                            active.withLock { $0 -= 1 }
                            finished()
                        }
                    }
                }
            }
        }
        try await done.value
        #expect(overlaps.current == 0)
    }

    @Test("E3 operation-queue max concurrency is never exceeded under load (atomic high-water mark)")
    func operationsUnderLoad() async throws {
        let executor = OperationExecutor(maxConcurrentCount: 3)
        let active = Locked(0)
        let highWater = Locked(0)
        let remaining = Locked(4_000)
        let (done, resolver) = Promise<Void>.pending()
        await withTaskGroup(of: Void.self) { group in
            for producer in 0..<4 {
                group.addTask {
                    for index in 0..<1_000 {
                        let priority = OperationExecutor.Priority.allCases[(index + producer) % 5]
                        executor.addOperation(priority: priority) {
                            let now = active.increment()
                            highWater.withLock { $0 = max($0, now) }
                            active.withLock { $0 -= 1 }
                            if remaining.withLock({ $0 -= 1; return $0 }) == 0 { resolver.fulfill() }
                        }
                    }
                }
            }
        }
        try await done.value
        #expect(highWater.current <= 3)
    }
}
