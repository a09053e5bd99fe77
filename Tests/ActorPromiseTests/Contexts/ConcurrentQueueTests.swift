import Testing
import ActorPromise

@Suite("E2 concurrent queue")
struct ConcurrentQueueTests {
    @Test("E2 never more than the width at once; a barrier waits for earlier items and runs alone")
    func widthAndBarrier() async throws {
        let queue = ConcurrentQueue(label: "barrier", width: 2)
        let active = Locked(0)
        let highWater = Locked(0)
        let events = Locked<[String]>([])
        let (done, resolver) = Promise<Void>.pending()
        let remaining = Locked(41)
        @Sendable func finish() { if remaining.withLock({ $0 -= 1; return $0 }) == 0 { resolver.fulfill() } }
        for index in 0..<20 {
            queue.async {
                let now = active.increment()
                highWater.withLock { $0 = max($0, now) }
                events.withLock { $0.append("before\(index)") }
                active.withLock { $0 -= 1 }
                finish()
            }
        }
        queue.async(barrier: true) {
            let alone = active.increment() == 1
            events.withLock { $0.append(alone ? "barrier-alone" : "barrier-shared") }
            active.withLock { $0 -= 1 }
            finish()
        }
        for index in 0..<20 {
            queue.async {
                let now = active.increment()
                highWater.withLock { $0 = max($0, now) }
                events.withLock { $0.append("after\(index)") }
                active.withLock { $0 -= 1 }
                finish()
            }
        }
        try await done.value
        let log = events.current
        let barrier = try #require(log.firstIndex(of: "barrier-alone"))
        #expect(log[..<barrier].allSatisfy { $0.hasPrefix("before") } && barrier == 20)
        #expect(log[(barrier + 1)...].allSatisfy { $0.hasPrefix("after") })
        #expect(highWater.current <= 2)
    }

    @Test("E2 handlers given to the queue run as barriers; queue.concurrent opts out")
    func handlersAreBarriers() async throws {
        let queue = ConcurrentQueue(label: "handlers", width: 4)
        let active = Locked(0)
        let sawOthers = Locked(false)
        let (root, resolver) = Promise<Int>.pending()
        var children: [Promise<Void>] = []
        for _ in 0..<50 {
            children.append(root.then(on: queue) { _ in
                if active.increment() != 1 { sawOthers.withLock { $0 = true } }
                active.withLock { $0 -= 1 }
            })
        }
        let plain = root.then(on: queue.concurrent) { $0 + 1 }
        resolver.fulfill(1)
        for child in children { try await child.value }
        #expect(!sawOthers.current, "barrier handlers never overlap")
        #expect(try await plain.value == 2)
    }
}
