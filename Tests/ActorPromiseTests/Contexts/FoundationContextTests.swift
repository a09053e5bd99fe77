import Testing
import Foundation
import Dispatch
import ActorPromise

@Suite("E6 Foundation queues as contexts")
struct FoundationContextTests {
    @Test("E6 then(on: DispatchQueue) runs on that queue, in registration order on a serial queue")
    func dispatchQueue() async throws {
        let key = DispatchSpecificKey<String>()
        let queue = DispatchQueue(label: "user.serial")
        queue.setSpecific(key: key, value: "user.serial")
        let (promise, resolver) = Promise<Int>.pending()
        let order = Locked<[Int]>([]), onQueue = Locked(true)
        var handlers: [Promise<Void>] = []
        for index in 0..<50 {
            if index == 25 { resolver.fulfill(0) }
            handlers.append(promise.then(on: queue) { _ in
                if DispatchQueue.getSpecific(key: key) != "user.serial" { onQueue.withLock { $0 = false } }
                order.append(index)
            })
        }
        for handler in handlers { try await handler.value }
        #expect(onQueue.current)
        #expect(order.current == Array(0..<50))
    }

    @Test("E6 a concurrent DispatchQueue runs handlers as barriers; concurrentContext side by side")
    func concurrentDispatchQueue() async throws {
        let queue = DispatchQueue(label: "user.concurrent", attributes: .concurrent)
        let (promise, resolver) = Promise<Int>.pending()
        let inside = Locked(0), maxInside = Locked(0)
        var handlers: [Promise<Void>] = []
        for _ in 0..<20 {
            handlers.append(promise.then(on: queue) { _ in
                let now = inside.withLock { $0 += 1; return $0 }
                maxInside.withLock { $0 = max($0, now) }
                inside.withLock { $0 -= 1 }
            })
        }
        resolver.fulfill(1)
        for handler in handlers { try await handler.value }
        #expect(maxInside.current == 1, "barrier handlers never overlap")
        #expect(try await promise.then(on: queue.concurrentContext) { $0 + 1 }.value == 2)
    }

    @Test("E6 then(on: OperationQueue) runs as an operation of that queue, in order when serial")
    func operationQueue() async throws {
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let (promise, resolver) = Promise<Int>.pending()
        let order = Locked<[Int]>([]), onQueue = Locked(true)
        var handlers: [Promise<Void>] = []
        for index in 0..<50 {
            if index == 10 { resolver.fulfill(0) }
            handlers.append(promise.then(on: queue) { _ in
                if OperationQueue.current !== queue { onQueue.withLock { $0 = false } }
                order.append(index)
            })
        }
        for handler in handlers { try await handler.value }
        #expect(onQueue.current)
        #expect(order.current == Array(0..<50))
    }

    @Test("E6 a handler cancelled on a suspended OperationQueue cancels its promise instead of vanishing")
    func operationQueueCancel() async throws {
        let queue = OperationQueue()
        queue.isSuspended = true
        let ran = Locked(false)
        let (input, resolver) = Promise<Int>.pending()
        let handler = input.then(on: queue) { _ in ran.withLock { $0 = true } }
        // The fulfil hands the handler to the queue before it returns.
        resolver.fulfill(1)
        #expect(queue.operationCount == 1)
        queue.cancelAllOperations()
        queue.isSuspended = false
        guard case .failure(let error) = await handler.guardedAgainstHang().outcome else {
            Issue.record("a cancelled operation's handler ran")
            return
        }
        #expect((error as? PromiseError)?.code == .cancelled)
        #expect(!ran.current)
    }

    @Test("E6 then(on: RunLoopContext) runs on the thread running that run loop, in order")
    func runLoop() async throws {
        let loopReady = Countdown(1)
        let holder = Locked<RunLoopContext?>(nil)
        let stop = Locked(false)
        let threadID = Locked<UInt>(0)
        let thread = Thread {
            holder.withLock { $0 = RunLoopContext(RunLoop.current) }
            threadID.withLock { $0 = currentThreadID() }
            loopReady.tick()
            // Keep the loop alive with a port-less timer, and turn it until told to stop.
            let keepAlive = Timer(timeInterval: 3600, repeats: true) { _ in }
            RunLoop.current.add(keepAlive, forMode: .default)
            while !stop.current { _ = RunLoop.current.run(mode: .default, before: Date(timeIntervalSinceNow: 1)) }
            keepAlive.invalidate()
        }
        thread.start()
        try await loopReady.wait()
        let context = holder.current!
        let (promise, resolver) = Promise<Int>.pending()
        let order = Locked<[Int]>([]), onThread = Locked(true)
        var handlers: [Promise<Void>] = []
        for index in 0..<20 {
            handlers.append(promise.then(on: context) { _ in
                if currentThreadID() != threadID.current { onThread.withLock { $0 = false } }
                order.append(index)
            })
        }
        resolver.fulfill(0)
        for handler in handlers { try await handler.guardedAgainstHang().value }
        stop.withLock { $0 = true }
        #expect(onThread.current)
        #expect(order.current == Array(0..<20))
    }
}
