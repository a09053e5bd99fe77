// Runs one workload (W1–W7, Benchmarks/README.md) a given number of times, for one library, and exits.
// `compare.sh` runs it under callgrind at two sizes and subtracts, so start-up costs cancel out.
//
//   Measure <workload> <library> <iterations>
//   workload: w1 (100-link chain)   w1q (100-link chain on a serial queue)   w1o (on an OperationExecutor)   w1p (W1 built inside a pool job, NIO's shape)
//             w1c (W1; its NIO peer built by the caller off the loop, W1's shape)   w2 (1,000-handler fan-out)   w2p (W2 in NIO's shape)
//             w2c (W2 with `whenComplete` callbacks: NIO's reference shape, `whenSuccess`, derives nothing either)
//             w2cp (W2c in NIO's shape: registered and fulfilled inside a pool job)
//             w3 (create, fulfil, one handler)   w5 (await a settled promise)
//             w5x (await a promise fulfilled on another thread)   w6 (bytes per pending promise)
//             w5s (w5x with the awaiter always suspended before the other thread settles: one mode)
//             w7 (serial-queue hop)   w7r (a hop to a RunLoopThread)   loop (resident bytes per pending iteration of a recursive loop)
//             maplazy (resident bytes per element of map(_:maxConcurrency: 8) over a lazy sequence)
//             polling, polling-release (a polling loop, steps settled on another thread: resident growth
//             in all at the deepest point; the step in flight then settled, or released, from a
//             512 KiB thread)
//             w4 (`all` of 10,000 promises fulfilled from two threads)
//             w6h0, w6h1, w6h10 (bytes per pending promise with 0, 1, 10 handlers)
//             callbacks, erase (the shapes of NIO's allocation guards "lots of callbacks" and
//             "erase result", handlers inline / on an EmbeddedEventLoop: allocations per iteration)
//             rmw (one uncontended atomic read-modify-write; its peer `plain`, a load and a store)
//             pool1, pool2, pool4, pool8 (1/2/4/8 producer threads submitting ITERATIONS jobs to a
//             pool; prints wall-clock ns per job: contention.sh)
//             fan1, fan2, fan4, fan8 with library 1 or 2 (producer threads making pending roots
//             with one or two inline children; prints wall-clock ns per root: contention.sh)
//   library:  actorpromise | actorpromise-inline | nio | dispatch | continuation | checked-continuation
//             | actorpromise-tasklocal (w1, w2 with one task-local key propagated and bound: R15's cost)
//             | actorpromise-traced (w1, and w1f: a rejection through a 100-link chain, with failure
//             traces switched on: R16's cost in a release build; w1f with actorpromise: traces off)
import ActorPromise
import Foundation

/// Runs async work from the synchronous main thread (valgrind cannot run an `async` main).
func runAsync(_ body: @escaping @Sendable () async -> Void) {
    let done = DispatchSemaphore(value: 0)
    Task {
        await body()
        done.signal()
    }
    done.wait()
}

let arguments = CommandLine.arguments
guard arguments.count == 4, let iterations = Int(arguments[3]) else {
    print("usage: Measure WORKLOAD LIBRARY ITERATIONS")
    exit(2)
}
let workload = arguments[1]
let library = arguments[2]

switch (workload, library) {
case ("w1", "actorpromise"): ActorPromiseWorkloads.chain(iterations: iterations, links: 100, on: .global)
case ("w1", "actorpromise-inline"): ActorPromiseWorkloads.chain(iterations: iterations, links: 100, on: .inline)
case ("w1", "nio"): NIOWorkloads.chain(iterations: iterations, links: 100)
case ("w1p", "actorpromise"): ActorPromiseWorkloads.chainBuiltOnPool(iterations: iterations, links: 100)
case ("w1p", "nio"): NIOWorkloads.chain(iterations: iterations, links: 100)
case ("w1c", "actorpromise"): ActorPromiseWorkloads.chain(iterations: iterations, links: 100, on: .global)
case ("w1c", "nio"): NIOWorkloads.chainBuiltByCaller(iterations: iterations, links: 100)
case ("w1q", "actorpromise"): ActorPromiseWorkloads.chain(iterations: iterations, links: 100, on: SerialQueue(label: "w1q"))
case ("w1o", "actorpromise"): ActorPromiseWorkloads.chain(
    iterations: iterations, links: 100, on: OperationExecutor(label: "w1o", maxConcurrentCount: 1))
case ("w2", "actorpromise"): ActorPromiseWorkloads.fanOut(iterations: iterations, handlers: 1_000)
case ("w1", "actorpromise-tasklocal"): TaskLocalWorkloads.chain(iterations: iterations)
case ("w2", "actorpromise-tasklocal"): TaskLocalWorkloads.fanOut(iterations: iterations)
case ("w1", "actorpromise-traced"): TracedWorkloads.chain(iterations: iterations)
case ("w1f", "actorpromise"): TracedWorkloads.failedChain(iterations: iterations, traced: false)
case ("w1f", "actorpromise-traced"): TracedWorkloads.failedChain(iterations: iterations, traced: true)
case ("w2", "nio"): NIOWorkloads.fanOut(iterations: iterations, handlers: 1_000)
case ("w2c", "actorpromise"): ActorPromiseWorkloads.callbackFanOut(iterations: iterations, handlers: 1_000)
case ("w2c", "nio"): NIOWorkloads.fanOut(iterations: iterations, handlers: 1_000)
case ("w2p", "actorpromise"): ActorPromiseWorkloads.fanOutBuiltOnPool(iterations: iterations, handlers: 1_000)
case ("w2", "nio-map"): NIOWorkloads.fanOutMap(iterations: iterations, handlers: 1_000)
case ("w2p", "nio"): NIOWorkloads.fanOut(iterations: iterations, handlers: 1_000)
case ("w2p", "nio-map"): NIOWorkloads.fanOutMap(iterations: iterations, handlers: 1_000)
case ("w2cp", "actorpromise"): ActorPromiseWorkloads.callbackFanOutBuiltOnPool(iterations: iterations, handlers: 1_000)
case ("w2cp", "nio"): NIOWorkloads.fanOut(iterations: iterations, handlers: 1_000)
case ("w4", "actorpromise"): ActorPromiseWorkloads.all(iterations: iterations, count: 10_000)
case ("w4", "nio"): NIOWorkloads.all(iterations: iterations, count: 10_000)
case ("w3", "actorpromise"): ActorPromiseWorkloads.lifecycle(iterations: iterations, inline: false)
case ("w3", "actorpromise-inline"): ActorPromiseWorkloads.lifecycle(iterations: iterations, inline: true)
case ("w3", "nio"): NIOWorkloads.lifecycle(iterations: iterations)
case ("w5", "actorpromise"): runAsync { await AwaitWorkloads.awaitSettledPromise(iterations: iterations) }
case ("w5", "continuation"): runAsync { await AwaitWorkloads.unsafeContinuationInline(iterations: iterations) }
case ("w5", "checked-continuation"): runAsync { await AwaitWorkloads.checkedContinuationInline(iterations: iterations) }
case ("w5x", "actorpromise"): runAsync { await AwaitWorkloads.awaitPromiseFromOtherThread(iterations: iterations) }
case ("w5x", "continuation"): runAsync { await AwaitWorkloads.unsafeContinuationFromOtherThread(iterations: iterations) }
case ("w5x", "checked-continuation"): runAsync { await AwaitWorkloads.checkedContinuationFromOtherThread(iterations: iterations) }
case ("w5x", "nio"): runAsync { await NIOWorkloads.getFromEventLoop(iterations: iterations) }
case ("w5s", "actorpromise"): SuspendedAwaitWorkloads.run { await SuspendedAwaitWorkloads.awaitPromise(iterations: iterations, on: $0) }
case ("w5s", "continuation"): SuspendedAwaitWorkloads.run { await SuspendedAwaitWorkloads.unsafeContinuation(iterations: iterations, on: $0) }
case ("w5s", "cancellable-continuation"): SuspendedAwaitWorkloads.run { await SuspendedAwaitWorkloads.cancellableContinuation(iterations: iterations, on: $0) }
case ("w5s", "checked-continuation"): SuspendedAwaitWorkloads.run { await SuspendedAwaitWorkloads.checkedContinuation(iterations: iterations, on: $0) }
case ("w5x", "task"): runAsync { await AwaitWorkloads.taskValue(iterations: iterations) }
case ("w6", "actorpromise"): print(ActorPromiseWorkloads.bytesPerPendingPromise(count: iterations))
case ("w6", "nio"): print(NIOWorkloads.bytesPerPendingPromise(count: iterations))
case ("w6h0", "actorpromise"): print(MemoryWorkloads.actorPromise(count: iterations, handlers: 0))
case ("w6h0", "nio"): print(MemoryWorkloads.nio(count: iterations, handlers: 0))
case ("w6h1", "actorpromise"): print(MemoryWorkloads.actorPromise(count: iterations, handlers: 1))
case ("w6h1", "nio"): print(MemoryWorkloads.nio(count: iterations, handlers: 1))
case ("w6h10", "actorpromise"): print(MemoryWorkloads.actorPromise(count: iterations, handlers: 10))
case ("w6h10", "nio"): print(MemoryWorkloads.nio(count: iterations, handlers: 10))
case ("callbacks", "actorpromise"): AllocationWorkloads.lotsOfCallbacks(iterations: iterations)
case ("callbacks", "nio"): AllocationWorkloads.lotsOfCallbacksNIO(iterations: iterations)
case ("erase", "actorpromise"): AllocationWorkloads.eraseResult(iterations: iterations)
case ("erase", "nio"): AllocationWorkloads.eraseResultNIO(iterations: iterations)
case ("loop", "actorpromise"): print(ActorPromiseWorkloads.recursiveLoopBytes(iterations: iterations))
case ("polling", "actorpromise"): PollingLoopWorkload.run(iterations: iterations, release: false)
case ("polling-release", "actorpromise"): PollingLoopWorkload.run(iterations: iterations, release: true)
case ("maplazy", "actorpromise"): print(ActorPromiseWorkloads.lazyMapBytes(count: iterations))
case ("loop", "nio"): print(NIOWorkloads.recursiveLoopBytes(iterations: iterations))
case ("w7", "actorpromise"): ActorPromiseWorkloads.serialHop(iterations: iterations)
case ("w7r", "actorpromise"): ActorPromiseWorkloads.runLoopHop(iterations: iterations)
case ("w7r", "dispatch"): DispatchWorkloads.serialHop(iterations: iterations)
case ("w7", "dispatch"): DispatchWorkloads.serialHop(iterations: iterations)
case ("rmw", "actorpromise"): AtomicCost.readModifyWrite(iterations: iterations)
case ("rmw", "plain"): AtomicCost.loadAndStore(iterations: iterations)
case (let fan, let children) where fan.hasPrefix("fan"):
    FanOutContention.run(children: Int(children) ?? 1, producers: Int(fan.dropFirst(3)) ?? 1, roots: iterations)
case (let pool, _) where pool.hasPrefix("pool"):
    PoolContention.run(library: library, producers: Int(pool.dropFirst(4)) ?? 1, jobs: iterations)
default:
    print("unknown workload/library: \(workload) \(library)")
    exit(2)
}
