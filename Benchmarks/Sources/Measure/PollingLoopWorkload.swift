import ActorPromise
import Dispatch
import Foundation
import Synchronization

/// A polling loop as a user writes it: `poll(i) = step(i).flatMap { done in done ? Promise(value: i) :
/// poll(i + 1) }`, each step a promise made with a resolver and settled on another thread (a
/// `DispatchQueue`), the last one left pending. Prints the growth of resident memory from before
/// the loop to its deepest point, in bytes (in all, not per level: the loop should hold the same
/// whatever its length), then settles — or, with `release`, lets go of — the step in flight from
/// a thread with a 512 KiB stack and waits for the loop's outcome.
enum PollingLoopWorkload {
    static func run(iterations: Int, release: Bool) {
        let queue = DispatchQueue(label: "polling.steps")
        let before = heapInUse()
        let deepest = Atomic<Int>(0)
        let inFlight = Mutex<Resolver<Bool>?>(nil)
        let reached = DispatchSemaphore(value: 0)
        @Sendable func step(_ index: Int) -> Promise<Bool> {
            Promise { resolver in
                if index == iterations {
                    inFlight.withLock { $0 = resolver }   // the work in flight keeps its resolver
                    deepest.store(heapInUse(), ordering: .relaxed)
                    reached.signal()
                } else {
                    queue.async { resolver.fulfill(false) }
                }
            }
        }
        @Sendable func poll(_ index: Int) -> Promise<Int> {
            step(index).flatMap { done in done ? Promise(value: index) : poll(index + 1) }
        }
        let outer = poll(0)
        reached.wait()
        let finish = Thread {
            let resolver = inFlight.withLock { $0.take() }
            if !release { resolver?.fulfill(true) }
        }
        finish.stackSize = 512 * 1024
        finish.start()
        let done = DispatchSemaphore(value: 0)
        outer.whenComplete(on: .inline) { result in
            switch result {
            case .success(let value): precondition(!release && value == iterations)
            case .failure(let error): precondition(release && (error as? PromiseError)?.code == .abandoned)
            }
            done.signal()
        }
        done.wait()
        print(deepest.load(ordering: .relaxed) - before)
    }
}
