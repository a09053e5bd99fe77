import ActorPromise
import Synchronization
import Dispatch

enum ActorPromiseWorkloads {
    /// W1: a pending root, `links` handlers of x+1, fulfil, wait for the end. Driven from the main
    /// thread as users do; handlers run on `context` (the global pool, `.inline`, a `SerialQueue`
    /// for W1q, an `OperationExecutor` for W1o).
    static func chain(iterations: Int, links: Int, on context: any ExecutionContext) {
        let done = DispatchSemaphore(value: 0)
        for _ in 0..<iterations {
            let (root, resolver) = Promise<Int>.pending()
            var tail = root
            for _ in 0..<links { tail = tail.then(on: context) { $0 + 1 } }
            tail.then(on: context) { value in
                precondition(value == links)
                done.signal()
            }
            resolver.fulfill(0)
            done.wait()
        }
    }

    /// W1, NIO's shape: each iteration's chain is built and fulfilled inside a job on the pool,
    /// as NIO's reference builds its chain inside `loop.execute`, so that construction and the
    /// handlers share one thread's caches. Same work as ``chain(iterations:links:on:)``.
    ///
    /// A function of its own, not a flag on W1 with a shared body: W1 holds its root and tail
    /// until after its wait, so the caller frees the chain once it has run; a shared body frees
    /// them as it returns, while the pool runs the chain, and that moved W1's whole-process CPU
    /// by 1.5x–1.8x with its instructions unchanged (`wallclock.py`; the same holds for W2).
    static func chainBuiltOnPool(iterations: Int, links: Int) {
        let done = DispatchSemaphore(value: 0)
        for _ in 0..<iterations {
            WorkerPool.global.submit(ClosureWorkItem {
                let (root, resolver) = Promise<Int>.pending()
                var tail = root
                for _ in 0..<links { tail = tail.then { $0 + 1 } }
                tail.then { value in
                    precondition(value == links)
                    done.signal()
                }
                resolver.fulfill(0)
            })
            done.wait()
        }
    }

    /// W3: create a pending promise, add one handler, fulfil, wait.
    static func lifecycle(iterations: Int, inline: Bool) {
        let context: any ExecutionContext = inline ? .inline : .global
        let done = DispatchSemaphore(value: 0)
        for index in 0..<iterations {
            let (promise, resolver) = Promise<Int>.pending()
            promise.then(on: context) { value in
                precondition(value == index)
                done.signal()
            }
            resolver.fulfill(index)
            done.wait()
        }
    }

    /// W6: heap bytes per pending promise that has one handler (root + derived promise + link).
    static func bytesPerPendingPromise(count: Int) -> Int {
        var keep: [(Promise<Int>, Resolver<Int>, Promise<Int>)] = []
        keep.reserveCapacity(count)
        let before = heapInUse()
        for _ in 0..<count {
            let (promise, resolver) = Promise<Int>.pending()
            keep.append((promise, resolver, promise.then { $0 + 1 }))
        }
        let after = heapInUse()
        withExtendedLifetime(keep) {}
        return (after - before) / count
    }

    /// W2, NIO's shape: each iteration's handlers are registered, and the promise fulfilled,
    /// inside a job on the pool, as NIO's reference does inside `loop.execute`.
    ///
    /// Its handler tests `<= 0` where W2's tests `== 0`: with the same body the optimizer merges
    /// the two closures, and W2's handlers then run through a shared thunk (4 instructions each).
    /// The same holds for ``callbackFanOutBuiltOnPool(iterations:handlers:)`` and W2c.
    static func fanOutBuiltOnPool(iterations: Int, handlers: Int) {
        let done = DispatchSemaphore(value: 0)
        for _ in 0..<iterations {
            WorkerPool.global.submit(ClosureWorkItem {
                let (root, resolver) = Promise<Int>.pending()
                let remaining = Counter(handlers)
                for _ in 0..<handlers {
                    root.then { _ in if remaining.decrement() <= 0 { done.signal() } }
                }
                resolver.fulfill(1)
            })
            done.wait()
        }
    }

    /// W2c in NIO's shape: the callbacks registered, and the promise fulfilled, inside a job on
    /// the pool, as NIO's reference does inside `loop.execute`. A copy of
    /// ``fanOutBuiltOnPool(iterations:handlers:)`` with W2c's one line (see
    /// ``callbackFanOut(iterations:handlers:)``).
    static func callbackFanOutBuiltOnPool(iterations: Int, handlers: Int) {
        let done = DispatchSemaphore(value: 0)
        for _ in 0..<iterations {
            WorkerPool.global.submit(ClosureWorkItem {
                let (root, resolver) = Promise<Int>.pending()
                let remaining = Counter(handlers)
                for _ in 0..<handlers {
                    root.whenComplete { (_: Result<Int, any Error>) in if remaining.decrement() <= 0 { done.signal() } }
                }
                resolver.fulfill(1)
            })
            done.wait()
        }
    }

    /// W2: one pending promise, `handlers` handlers on the global pool, fulfil, wait for all.
    static func fanOut(iterations: Int, handlers: Int) {
        let done = DispatchSemaphore(value: 0)
        for _ in 0..<iterations {
            let (root, resolver) = Promise<Int>.pending()
            let remaining = Counter(handlers)
            for _ in 0..<handlers {
                root.then { _ in if remaining.decrement() == 0 { done.signal() } }
            }
            resolver.fulfill(1)
            done.wait()
        }
    }

    /// W2 with callbacks: `handlers` `whenComplete` callbacks on one pending promise, fulfil, wait
    /// for all. The shape of NIO's W2 reference (`whenSuccess`), which derives nothing either. A
    /// copy of W2 with one line changed, not a registration closure passed to one driver: W2 is
    /// a guarded row, and a call through a closure per handler would move its count.
    static func callbackFanOut(iterations: Int, handlers: Int) {
        let done = DispatchSemaphore(value: 0)
        for _ in 0..<iterations {
            let (root, resolver) = Promise<Int>.pending()
            let remaining = Counter(handlers)
            for _ in 0..<handlers {
                root.whenComplete { (_: Result<Int, any Error>) in if remaining.decrement() == 0 { done.signal() } }
            }
            resolver.fulfill(1)
            done.wait()
        }
    }

    /// W7: a hop to a serial queue and a signal back.
    static func serialHop(iterations: Int) {
        let queue = SerialQueue(label: "w7")
        let done = DispatchSemaphore(value: 0)
        for _ in 0..<iterations {
            queue.async { done.signal() }
            done.wait()
        }
    }

    /// W7 on a `RunLoopThread`: a hop to a main-like thread that sleeps between jobs, and back.
    static func runLoopHop(iterations: Int) {
        let loop = RunLoopThread(name: "w7r")
        let done = DispatchSemaphore(value: 0)
        for _ in 0..<iterations {
            loop.async { done.signal() }
            done.wait()
        }
    }

    /// W4: `all` of `count` promises fulfilled from two threads.
    static func all(iterations: Int, count: Int) {
        let done = DispatchSemaphore(value: 0)
        for _ in 0..<iterations {
            let pairs = (0..<count).map { _ in Promise<Int>.pending() }
            Promise.all(pairs.map(\.promise)).then(on: .inline) { values in
                precondition(values.count == count)
                done.signal()
            }
            let half = count / 2
            let first = Array(pairs[..<half].map(\.resolver))
            let second = Array(pairs[half...].map(\.resolver))
            WorkerPool.global.submit(ClosureWorkItem { for resolver in first { resolver.fulfill(1) } })
            WorkerPool.global.submit(ClosureWorkItem { for resolver in second { resolver.fulfill(1) } })
            done.wait()
        }
    }
}

extension ActorPromiseWorkloads {
    /// A recursive loop written with promises (`step().then { loop(n - 1) }`, each step a job on
    /// the pool): resident bytes per iteration, measured at the loop's deepest point, when every
    /// level above it is still pending.
    static func recursiveLoopBytes(iterations: Int) -> Int {
        let before = heapInUse()
        let deepest = Atomic<Int>(0)
        @Sendable func loop(_ remaining: Int) -> Promise<Int> {
            if remaining == 0 {
                deepest.store(heapInUse(), ordering: .relaxed)
                return Promise(value: 0)
            }
            return Promise<Int> { $0.fulfill(remaining) }.then { loop($0 - 1) }
        }
        let done = DispatchSemaphore(value: 0)
        loop(iterations).then(on: .inline) { _ in done.signal() }
        done.wait()
        return (deepest.load(ordering: .relaxed) - before) / iterations
    }

    /// Resident bytes per element of `map(_:maxConcurrency: 8)` over the range `0..<count`, whose
    /// elements are made as they are read, read when the last element's transform starts: the result slots
    /// (16 bytes each for `Int?`, up to twice that while the array grows) and nothing per element
    /// of the input, which is read one element per free slot and never copied.
    static func lazyMapBytes(count: Int) -> Int {
        let before = heapInUse()
        let atLast = Atomic<Int>(0)
        let done = DispatchSemaphore(value: 0)
        Promise<Int>.map(0..<count, maxConcurrency: 8) { element in
            if element == count - 1 { atLast.store(heapInUse(), ordering: .relaxed) }
            return Promise(value: element)
        }.then(on: .inline) { _ in done.signal() }
        done.wait()
        return (atLast.load(ordering: .relaxed) - before) / count
    }
}
