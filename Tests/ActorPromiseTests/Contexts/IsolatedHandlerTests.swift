import Testing
import Dispatch
import ActorPromise

/// An actor on a serial queue of its own that names it, as the docs show.
actor Inventory: ContextIsolatedActor {
    let queue = SerialQueue(label: "inventory")
    nonisolated var unownedExecutor: UnownedSerialExecutor { queue.asUnownedSerialExecutor() }
    nonisolated var executionContext: any ExecutionContext { queue }
    var items: [Int] = []
    var ranInTask = false
    func take() -> [Int] { defer { items = [] }; return items }
}

@Suite("R9 actor-isolated handlers without a Task each")
struct IsolatedHandlerTests {
    @Test("R9 a ContextIsolatedActor's handlers run on its queue, in registration order, with no task")
    func queueBoundActor() async throws {
        let inventory = Inventory()
        for round in 0..<500 {
            try await registerInBatches(settleAfter: round % 5) { promise, index in
                promise.then(isolatedTo: inventory) { inventory, _ in
                    inventory.items.append(index)
                    if withUnsafeCurrentTask(body: { $0 != nil }) { inventory.ranInTask = true }
                }
            }
            let items = await inventory.take()
            if items != Array(0..<20) {
                Issue.record("round \(round): \(items)")
                return
            }
        }
        #expect(await inventory.ranInTask == false)
    }

    @Test("R9 handlers isolated to the main actor run on the main queue, in registration order, with no task")
    func mainActor() async throws {
        // For main-actor *state*, `then(on: .main) { @MainActor … }` is the form (an `isolated
        // MainActor` parameter does not make a closure `@MainActor` for the compiler).
        // Exclusive: a blocking wait on the main thread elsewhere would run these handlers in its task.
        try await AsyncMutex.mainThread.withLock { try await Self.mainActorRounds() }
    }

    static func mainActorRounds() async throws {
        let items = Locked<[Int]>([]), offMain = Locked(false), inTask = Locked(false)
        for round in 0..<500 {
            try await registerInBatches(settleAfter: round % 5) { promise, index in
                promise.then(isolatedTo: MainActor.shared) { _, _ in
                    items.append(index)
                    if !MainContext.isMainThread { offMain.withLock { $0 = true } }
                    if withUnsafeCurrentTask(body: { $0 != nil }) { inTask.withLock { $0 = true } }
                }
            }
            let seen = items.withLock { list in defer { list = [] }; return list }
            if seen != Array(0..<20) {
                Issue.record("round \(round): \(seen)")
                return
            }
        }
        #expect(!offMain.current)
        #expect(!inTask.current)
    }

    @Test("R9 a default actor still gets its handler (through a task), and a rejection skips it")
    func defaultActorFallback() async throws {
        actor Plain { var total = 0; func read() -> Int { total } }
        let plain = Plain()
        let result = try await Promise(value: 5).then(isolatedTo: plain) { plain, value in
            plain.total += value
            return plain.total
        }.value
        #expect(result == 5)
        let skipped = Promise<Int>(error: TestError(id: 4)).then(isolatedTo: plain) { plain, value in plain.total += value }
        await #expect(throws: TestError(id: 4)) { try await skipped.value }
        #expect(await plain.read() == 5)
    }
}
