import Testing
import Dispatch
import ActorPromise

/// A cancel that reaches a promise after it settled changes nothing any observer of that promise
/// reports (R1, B5), also when the observer's handler still waits in its context's queue.
@Suite("R1 B5 a late cancel changes no observer's report")
struct LateCancelTests {
    /// A serial queue kept busy until the returned function is called: handlers given to it wait
    /// in its queue meanwhile.
    static func busyQueue() -> (SerialQueue, release: @Sendable () -> Void) {
        let queue = SerialQueue(label: "late-cancel")
        let gate = DispatchSemaphore(value: 0)
        queue.async { gate.wait() }
        return (queue, { gate.signal() })
    }

    @Test("B5 whenComplete reports the value of a promise cancelled after it settled (queued handler)")
    func whenCompleteAfterSettlement() async throws {
        let promise = Promise(value: 56)
        let (queue, release) = Self.busyQueue()
        let (reported, report) = Promise<Result<Int, any Error>>.pending()
        promise.whenComplete(on: queue) { report.fulfill($0) }
        promise.cancel()
        release()
        let result = try await reported.value
        #expect(try result.get() == 56)
        #expect(try promise.result?.get() == 56)
    }

    @Test("B5 the (value, error) form of whenComplete also reports the settled value")
    func whenCompletePairAfterSettlement() async throws {
        let promise = Promise(value: 7)
        let (queue, release) = Self.busyQueue()
        let (reported, report) = Promise<Int?>.pending()
        promise.whenComplete(on: queue) { (value: Int?, _: (any Error)?) in report.fulfill(value) }
        promise.cancel()
        release()
        #expect(try await reported.value == 7)
    }

    @Test("R1 tap and catch see the outcome their promise settled with, not a later cancel")
    func tapAndCatchAfterSettlement() async throws {
        let rejected = Promise<Int>(error: TestError(id: 3))
        let fulfilled = Promise(value: 1)
        let (queue, release) = Self.busyQueue()
        let caught = Locked<[String]>([])
        let tapped = fulfilled.tap(on: queue) { outcome in
            let text = (try? outcome.get()).map(String.init) ?? "error"
            caught.withLock { $0.append("tap \(text)") }
        }
        let handled = rejected.catch(on: queue) { error in
            caught.withLock { $0.append(error is TestError ? "catch TestError" : "catch \(error)") }
        }
        rejected.cancel()
        fulfilled.cancel()
        release()
        // The derived promises were pending when the cancel reached them: they are cancelled (R5),
        // but their handlers report what their parents settled with.
        await #expect(throws: PromiseError.self) { try await tapped.value }
        await #expect(throws: PromiseError.self) { try await handled.value }
        try await CancelledBranchReleaseTests.drain(queue)   // both handlers have run
        #expect(caught.current.sorted() == ["catch TestError", "tap 1"])
    }

    @Test("R5b a handler whose promise is cancelled while its parent is pending still sees the cancellation")
    func cancelBeforeParentSettles() async throws {
        let (parent, resolver) = Promise<Int>.pending(tracksInterest: false)
        let (ran, ranOnce) = Promise<String>.pending()
        let tapped = parent.tap { outcome in
            ranOnce.fulfill((try? outcome.get()).map { "value \($0)" } ?? "error")
        }
        tapped.cancel()
        resolver.fulfill(5)
        await #expect(throws: PromiseError.self) { try await tapped.value }
        // The handler ran once, and saw the cancellation that came before its parent's value.
        #expect(try await ran.value == "error")
    }
}

/// A combinator observes its inputs; it is not derived from them. Cancelling an input after that
/// input settled changes nothing the combinator sees (R1); its pending output is not one of the
/// input's descendants that the cancel reaches (R5).
@Suite("R1 R5 combinators whose input is cancelled after it settled")
struct CombinatorLateCancelTests {
    @Test("R1 all, allSettled and zip keep a settled input's value when it is cancelled afterwards")
    func allAndZip() async throws {
        let settled = Promise(value: 1)
        let (pending, resolver) = Promise<Int>.pending()
        let all = Promise.all([settled, pending])
        let allSettled = Promise.allSettled([settled, pending])
        let zipped = zip(settled, pending)
        settled.cancel()
        resolver.fulfill(2)
        #expect(try await all.value == [1, 2])
        #expect(try await allSettled.value.map { try $0.get() } == [1, 2])
        let (first, second) = try await zipped.value
        #expect(first == 1 && second == 2)
    }

    @Test("R1 any keeps waiting for the other inputs when a rejected input is cancelled afterwards")
    func anyAfterRejection() async throws {
        let rejected = Promise<Int>(error: TestError(id: 1))
        let (pending, resolver) = Promise<Int>.pending()
        let first = Promise.any([rejected, pending])
        rejected.cancel()
        resolver.fulfill(3)
        #expect(try await first.value == 3)
    }

    @Test("R1 retry goes on after a failed attempt is cancelled once it settled")
    func retryAfterFailedAttempt() async throws {
        let failed = Promise<Int>(error: TestError(id: 2))
        let (second, resolver) = Promise<Int>.pending()
        let attempts = Locked(0)
        let (secondStarted, started) = Promise<Void>.pending()
        let result = Promise<Int>.retry(attempts: 2) { _ in
            if attempts.increment() == 1 { return failed }
            started.fulfill()
            return second
        }
        try await secondStarted.value
        failed.cancel()
        resolver.fulfill(4)
        #expect(try await result.value == 4)
    }
}

/// Two cancels racing on one branch: every pending promise of the branch ends cancelled, every
/// observer hears it once, the work's `onCancel` runs once (R5, R5b, R6).
@Suite("R5 R6 two cancels racing on one branch")
struct RacingCancelTests {
    @Test("R6 onCancel runs on the thread that applied the cancellation: the caller's, when nobody else is inside")
    func onCancelThread() async throws {
        let (promise, resolver) = Promise<Int>.pending()
        let ranOn = Locked<UInt?>(nil)
        resolver.onCancel { ranOn.withLock { $0 = currentThreadID() } }
        let (cancelled, done) = Promise<UInt>.pending()
        DispatchQueue.global().async {
            promise.cancel()
            done.fulfill(currentThreadID())
        }
        let caller = try await cancelled.value
        #expect(ranOn.current == caller)
        // A child's cancel that removes the root's last interested dependent runs it on its thread too.
        let (root, rootResolver) = Promise<Int>.pending()
        let rootRanOn = Locked<UInt?>(nil)
        rootResolver.onCancel { rootRanOn.withLock { $0 = currentThreadID() } }
        let child = root.then { $0 + 1 }
        let (childCancelled, childDone) = Promise<UInt>.pending()
        DispatchQueue.global().async {
            child.cancel()
            childDone.fulfill(currentThreadID())
        }
        let childCaller = try await childCancelled.value
        #expect(rootRanOn.current == childCaller)
    }

    @Test("R5 an ancestor's and a descendant's cancel, from two threads, 500 rounds")
    func ancestorAndDescendant() async throws {
        for _ in 0..<500 {
            let onCancelRuns = Locked(0)
            let (root, resolver) = Promise<Int>.pending()
            resolver.onCancel { onCancelRuns.increment() }
            let middle = root.then { $0 + 1 }
            let leaf = middle.map { $0 * 2 }
            let heard = Locked<[String]>([])
            let (allHeard, finished) = Promise<Void>.pending()
            let countdown = Locked(3)
            for (name, promise) in [("root", root), ("middle", middle), ("leaf", leaf)] {
                promise.whenComplete { result in
                    if case .failure(let error) = result, error.isCancellation { heard.withLock { $0.append(name) } }
                    if countdown.withLock({ $0 -= 1; return $0 }) == 0 { finished.fulfill() }
                }
            }
            let start = DispatchGroup()
            DispatchQueue.global().async(group: start) { root.cancel() }
            DispatchQueue.global().async(group: start) { middle.cancel() }
            await withCheckedContinuation { done in start.notify(queue: .global()) { done.resume() } }
            try await allHeard.value
            #expect(heard.current.sorted() == ["leaf", "middle", "root"])
            #expect(onCancelRuns.current == 1)
            for promise in [root, middle, leaf] { #expect(promise.isCancelled) }
        }
    }
}
