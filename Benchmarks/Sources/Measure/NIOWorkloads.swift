import Dispatch
import NIOCore
import NIOPosix
import Synchronization

/// The reference: SwiftNIO futures on their own event loop, the way NIO is meant to be used.
enum NIOWorkloads {
    static let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)

    static func chain(iterations: Int, links: Int) {
        let loop = group.next()
        let done = DispatchSemaphore(value: 0)
        for _ in 0..<iterations {
            loop.execute {
                let promise = loop.makePromise(of: Int.self)
                var tail = promise.futureResult
                for _ in 0..<links { tail = tail.map { $0 + 1 } }
                tail.whenSuccess { value in
                    precondition(value == links)
                    done.signal()
                }
                promise.succeed(0)
            }
            done.wait()
        }
    }

    /// W1 in this library's shape: the chain built and its root succeeded by the caller's thread,
    /// off the loop, as W1 builds its chain (information beside the reference). Off the loop, each
    /// `map` hands its registration to the loop (`execute`). A copy of the reference's body, run
    /// outside `loop.execute`, so that the reference itself stays as it was measured.
    static func chainBuiltByCaller(iterations: Int, links: Int) {
        let loop = group.next()
        let done = DispatchSemaphore(value: 0)
        for _ in 0..<iterations {
            let promise = loop.makePromise(of: Int.self)
            var tail = promise.futureResult
            for _ in 0..<links { tail = tail.map { $0 + 1 } }
            tail.whenSuccess { value in
                precondition(value == links)
                done.signal()
            }
            promise.succeed(0)
            done.wait()
        }
    }

    /// W2 reference: one promise, `handlers` callbacks, succeed, wait for all (on the loop).
    static func fanOut(iterations: Int, handlers: Int) {
        let loop = group.next()
        let done = DispatchSemaphore(value: 0)
        for _ in 0..<iterations {
            loop.execute {
                let promise = loop.makePromise(of: Int.self)
                let remaining = Counter(handlers)
                for _ in 0..<handlers {
                    promise.futureResult.whenSuccess { _ in if remaining.decrement() == 0 { done.signal() } }
                }
                promise.succeed(1)
            }
            done.wait()
        }
    }

    /// W2 with a derived future per handler (`map`), as `then` derives a promise per handler:
    /// information beside the reference, which registers plain callbacks. A copy of the reference
    /// with one line changed, not a flag on it: a branch in the reference's loop moved its count
    /// by 86 instructions per handler.
    static func fanOutMap(iterations: Int, handlers: Int) {
        let loop = group.next()
        let done = DispatchSemaphore(value: 0)
        for _ in 0..<iterations {
            loop.execute {
                let promise = loop.makePromise(of: Int.self)
                let remaining = Counter(handlers)
                for _ in 0..<handlers {
                    _ = promise.futureResult.map { _ in if remaining.decrement() == 0 { done.signal() } }
                }
                promise.succeed(1)
            }
            done.wait()
        }
    }

    /// W4 reference: `whenAllSucceed` of `count` promises succeeded from two threads.
    static func all(iterations: Int, count: Int) {
        let loop = group.next()
        let done = DispatchSemaphore(value: 0)
        for _ in 0..<iterations {
            let promises = (0..<count).map { _ in loop.makePromise(of: Int.self) }
            EventLoopFuture.whenAllSucceed(promises.map(\.futureResult), on: loop).whenSuccess { values in
                precondition(values.count == count)
                done.signal()
            }
            let half = count / 2
            let first = Array(promises[..<half])
            let second = Array(promises[half...])
            DispatchQueue.global().async { for promise in first { promise.succeed(1) } }
            DispatchQueue.global().async { for promise in second { promise.succeed(1) } }
            done.wait()
        }
    }

    static func lifecycle(iterations: Int) {
        let loop = group.next()
        let done = DispatchSemaphore(value: 0)
        for index in 0..<iterations {
            loop.execute {
                let promise = loop.makePromise(of: Int.self)
                promise.futureResult.whenSuccess { value in
                    precondition(value == index)
                    done.signal()
                }
                promise.succeed(index)
            }
            done.wait()
        }
    }

    /// Heap bytes per pending promise with one `map` (promise + future + callback).
    static func bytesPerPendingPromise(count: Int) -> Int {
        let loop = group.next()
        return try! loop.submit {
            var keep: [(EventLoopPromise<Int>, EventLoopFuture<Int>)] = []
            keep.reserveCapacity(count)
            let before = heapInUse()
            for _ in 0..<count {
                let promise = loop.makePromise(of: Int.self)
                keep.append((promise, promise.futureResult.map { $0 + 1 }))
            }
            let after = heapInUse()
            for (promise, _) in keep { promise.succeed(0) }
            return (after - before) / count
        }.wait()
    }
}

extension NIOWorkloads {
    /// The recursive-loop peer: `loop.submit { n }.flatMap { loop(n - 1) }`, resident bytes per
    /// iteration at the deepest point.
    static func recursiveLoopBytes(iterations: Int) -> Int {
        let eventLoop = group.next()
        let before = heapInUse()
        let deepest = Atomic<Int>(0)
        @Sendable func loop(_ remaining: Int) -> EventLoopFuture<Int> {
            if remaining == 0 {
                deepest.store(heapInUse(), ordering: .relaxed)
                return eventLoop.makeSucceededFuture(0)
            }
            return eventLoop.submit { remaining }.flatMap { loop($0 - 1) }
        }
        _ = try! loop(iterations).wait()
        return (deepest.load(ordering: .relaxed) - before) / iterations
    }
}

extension NIOWorkloads {
    /// The W5x peer: a future completed on its event loop, awaited from a task with `get()`. The
    /// completion is queued on the loop before `get()` registers its callback (which NIO also
    /// hops to the loop), so the callback always finds it completed and resumes the awaiting task
    /// from the loop's thread: one cross-thread resume per await, never a race.
    static func getFromEventLoop(iterations: Int) async {
        let eventLoop = group.next()
        var sum = 0
        for _ in 0..<iterations {
            let promise = eventLoop.makePromise(of: Int.self)
            eventLoop.execute { promise.succeed(1) }
            sum &+= try! await promise.futureResult.get()
        }
        precondition(sum == iterations)
    }
}
