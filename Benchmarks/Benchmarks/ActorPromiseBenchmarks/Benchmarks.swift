// Wall-clock and malloc counts for the workloads W1–W7 (Benchmarks/README.md), ActorPromise and SwiftNIO side
// by side. Run: `swift package --allow-writing-to-package-directory benchmark` in Benchmarks/.
import ActorPromise
import Benchmark
import Dispatch
import NIOCore
import NIOPosix

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal],
        maxDuration: .seconds(2),
        maxIterations: 1_000
    )

    Benchmark("W1 chain of 100 (ActorPromise, global pool)") { benchmark in
        for _ in benchmark.scaledIterations { chain(links: 100, context: .global) }
    }
    Benchmark("W1 chain of 100 (ActorPromise, inline)") { benchmark in
        for _ in benchmark.scaledIterations { chain(links: 100, context: .inline) }
    }
    Benchmark("W1 chain of 100 (SwiftNIO on its loop)") { benchmark in
        for _ in benchmark.scaledIterations { nioChain(links: 100) }
    }
    Benchmark("W3 lifecycle (ActorPromise)") { benchmark in
        for _ in benchmark.scaledIterations { chain(links: 0, context: .global) }
    }
    Benchmark("W3 lifecycle (SwiftNIO)") { benchmark in
        for _ in benchmark.scaledIterations { nioChain(links: 0) }
    }
    Benchmark("W2 fan-out of 1,000 (ActorPromise)") { benchmark in
        for _ in benchmark.scaledIterations {
            let done = DispatchSemaphore(value: 0)
            let (root, resolver) = Promise<Int>.pending()
            let remaining = Countdown(1_000)
            for _ in 0..<1_000 { root.then { _ in if remaining.tick() { done.signal() } } }
            resolver.fulfill(1)
            done.wait()
        }
    }
    Benchmark("W2 fan-out of 1,000 (SwiftNIO)") { benchmark in
        let loop = nioGroup.next()
        for _ in benchmark.scaledIterations {
            let done = DispatchSemaphore(value: 0)
            loop.execute {
                let promise = loop.makePromise(of: Int.self)
                let remaining = Countdown(1_000)
                for _ in 0..<1_000 { promise.futureResult.whenSuccess { _ in if remaining.tick() { done.signal() } } }
                promise.succeed(1)
            }
            done.wait()
        }
    }
    Benchmark("W4 all of 10,000 (ActorPromise)", configuration: .init(maxIterations: 50)) { benchmark in
        for _ in benchmark.scaledIterations {
            let done = DispatchSemaphore(value: 0)
            let pairs = (0..<10_000).map { _ in Promise<Int>.pending() }
            Promise.all(pairs.map(\.promise)).then(on: .inline) { _ in done.signal() }
            let first = Array(pairs[..<5_000].map(\.resolver)), second = Array(pairs[5_000...].map(\.resolver))
            WorkerPool.global.submit(ClosureWorkItem { for resolver in first { resolver.fulfill(1) } })
            WorkerPool.global.submit(ClosureWorkItem { for resolver in second { resolver.fulfill(1) } })
            done.wait()
        }
    }
    Benchmark("W4 all of 10,000 (SwiftNIO whenAllSucceed)", configuration: .init(maxIterations: 50)) { benchmark in
        let loop = nioGroup.next()
        for _ in benchmark.scaledIterations {
            let done = DispatchSemaphore(value: 0)
            let promises = (0..<10_000).map { _ in loop.makePromise(of: Int.self) }
            EventLoopFuture.whenAllSucceed(promises.map(\.futureResult), on: loop).whenSuccess { _ in done.signal() }
            let first = Array(promises[..<5_000]), second = Array(promises[5_000...])
            DispatchQueue.global().async { for promise in first { promise.succeed(1) } }
            DispatchQueue.global().async { for promise in second { promise.succeed(1) } }
            done.wait()
        }
    }
    Benchmark("W7 hop (SerialQueue)") { benchmark in
        let queue = SerialQueue(label: "w7")
        let done = DispatchSemaphore(value: 0)
        for _ in benchmark.scaledIterations {
            queue.async { done.signal() }
            done.wait()
        }
    }
    Benchmark("W7 hop (DispatchQueue)") { benchmark in
        let queue = DispatchQueue(label: "w7")
        let done = DispatchSemaphore(value: 0)
        for _ in benchmark.scaledIterations {
            queue.async { done.signal() }
            done.wait()
        }
    }
}

/// A countdown shared by handlers; `tick` is true for the last one.
private final class Countdown: @unchecked Sendable {
    // Safety: `value` is only touched while holding `lock`, a binary semaphore.
    private let lock = DispatchSemaphore(value: 1)
    private var value: Int
    init(_ value: Int) { self.value = value }
    func tick() -> Bool {
        lock.wait()
        value -= 1
        let last = value == 0
        lock.signal()
        return last
    }
}

private let nioGroup = MultiThreadedEventLoopGroup(numberOfThreads: 1)

private func chain(links: Int, context: any ExecutionContext) {
    let done = DispatchSemaphore(value: 0)
    let (root, resolver) = Promise<Int>.pending()
    var tail = root
    for _ in 0..<links { tail = tail.then(on: context) { $0 + 1 } }
    tail.then(on: context) { _ in done.signal() }
    resolver.fulfill(0)
    done.wait()
}

private func nioChain(links: Int) {
    let loop = nioGroup.next()
    let done = DispatchSemaphore(value: 0)
    loop.execute {
        let promise = loop.makePromise(of: Int.self)
        var tail = promise.futureResult
        for _ in 0..<links { tail = tail.map { $0 + 1 } }
        tail.whenSuccess { _ in done.signal() }
        promise.succeed(0)
    }
    done.wait()
}
