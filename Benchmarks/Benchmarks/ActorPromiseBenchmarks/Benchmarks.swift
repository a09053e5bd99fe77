// Wall-clock and malloc counts for the workloads of DESIGN.md §6, ActorPromise and SwiftNIO side
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
