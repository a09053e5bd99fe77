import ActorPromise
import Dispatch
import Foundation
import NIOCore
import NIOPosix

/// Pool contention: `producers` threads each submit their share of `jobs` tiny jobs to a pool as
/// fast as they can; the run ends when every job has run. Prints wall-clock nanoseconds per job.
///
/// The pools compared, all with one thread per core:
/// - `actorpromise`: ``WorkerPool/global`` — one queue, one lock, shared by producers and workers;
/// - `dispatch`: `DispatchQueue.global()` — libdispatch's root queue (a lock-free list);
/// - `nio`: a `MultiThreadedEventLoopGroup`, each producer on the next loop — one queue per
///   thread and no stealing.
enum PoolContention {
    static let nioGroup = MultiThreadedEventLoopGroup(numberOfThreads: max(2, ProcessInfo.processInfo.activeProcessorCount))

    static func run(library: String, producers: Int, jobs: Int) {
        let perProducer = jobs / producers
        let remaining = Counter(perProducer * producers)
        let done = DispatchSemaphore(value: 0)
        let finish: @Sendable () -> Void = { if remaining.decrement() == 0 { done.signal() } }
        let submit: @Sendable (Int) -> Void
        switch library {
        case "actorpromise":
            submit = { _ in WorkerPool.global.submit(ClosureWorkItem(finish)) }
        case "dispatch":
            submit = { _ in DispatchQueue.global().async(execute: finish) }
        case "nio":
            let loops = (0..<producers).map { _ in nioGroup.next() }
            submit = { producer in loops[producer].execute(finish) }
        default:
            print("unknown library for the contention workload: \(library)")
            exit(2)
        }
        let began = startProducers(producers) { producer in
            for _ in 0..<perProducer { submit(producer) }
        }
        done.wait()
        let elapsed = DispatchTime.now().uptimeNanoseconds - began
        print(String(format: "%.1f", Double(elapsed) / Double(perProducer * producers)))
    }
}

/// Starts `producers` threads, each running `body` with its index, all at once when every one is
/// ready; returns when they were released, in `DispatchTime` nanoseconds.
func startProducers(_ producers: Int, _ body: @escaping @Sendable (Int) -> Void) -> UInt64 {
    let start = DispatchSemaphore(value: 0)
    let ready = DispatchGroup()
    for producer in 0..<producers {
        ready.enter()
        Thread.detachNewThread {
            ready.leave()
            start.wait()
            body(producer)
        }
    }
    ready.wait()
    let began = DispatchTime.now().uptimeNanoseconds
    for _ in 0..<producers { start.signal() }
    return began
}
