import Testing
import ActorPromise

/// An actor whose executor is a serial queue.
actor Account {
    let queue: SerialQueue
    var balance = 0
    init(queue: SerialQueue) { self.queue = queue }
    nonisolated var unownedExecutor: UnownedSerialExecutor { queue.asUnownedSerialExecutor() }
    func deposit(_ amount: Int) -> Int {
        balance += amount
        return balance
    }
}

@Suite("E1 serial queue")
struct SerialQueueTests {
    @Test("E1 items run one at a time, in submission order")
    func fifoAndExclusive() async throws {
        let queue = SerialQueue(label: "fifo")
        let order = Locked<[Int]>([])
        let active = Locked(0)
        let highWater = Locked(0)
        let (done, resolver) = Promise<Void>.pending()
        for index in 0..<2_000 {
            queue.async {
                let now = active.increment()
                highWater.withLock { $0 = max($0, now) }
                order.append(index)
                active.withLock { $0 -= 1 }
                if index == 1_999 { resolver.fulfill() }
            }
        }
        try await done.value
        #expect(order.current == Array(0..<2_000))
        #expect(highWater.current == 1)
    }

    @Test("E1 handlers on a serial queue run there, in registration order")
    func handlersOnQueue() async throws {
        let queue = SerialQueue(label: "handlers")
        let (root, resolver) = Promise<Int>.pending()
        let order = Locked<[Int]>([])
        let onQueue = Locked(true)
        var children: [Promise<Void>] = []
        for index in 0..<100 {
            children.append(root.then(on: queue) { _ in
                if !queue.isCurrent { onQueue.withLock { $0 = false } }
                order.append(index)
            })
        }
        resolver.fulfill(1)
        for child in children { try await child.value }
        #expect(order.current == Array(0..<100))
        #expect(onQueue.current)
    }

    @Test("E1 an actor can use a serial queue as its executor")
    func actorOnQueue() async throws {
        let queue = SerialQueue(label: "actor")
        let account = Account(queue: queue)
        let totals = await withTaskGroup(of: Int.self) { group in
            for _ in 0..<100 { group.addTask { await account.deposit(1) } }
            return await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(totals.sorted() == Array(1...100))
        #expect(await account.balance == 100)
        let isolatedInside = Locked(false)
        let (done, resolver) = Promise<Void>.pending()
        queue.async {
            let balance = account.assumeIsolated { $0.balance }
            isolatedInside.withLock { $0 = balance == 100 }
            resolver.fulfill()
        }
        try await done.value
        #expect(isolatedInside.current, "assumeIsolated works inside a queue item")
    }

    @Test("E1 a task with the queue as executor preference runs on it")
    func taskExecutorPreference() async {
        let queue = SerialQueue(label: "task")
        let onQueue = await Task(executorPreference: queue) { queue.isCurrent }.value
        #expect(onQueue)
    }
}
