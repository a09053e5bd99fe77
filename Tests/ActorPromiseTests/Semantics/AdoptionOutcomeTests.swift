import Testing
import Dispatch
import Foundation
import ActorPromise

/// A promise that follows another (adoption) behaves as any other promise: same outcome, same
/// interest, same cancellation reach. Each case below once gave another answer when the follower's
/// only observers were other followers.
@Suite("R1 R3 R5 R7 adoption changes no outcome")
struct AdoptionOutcomeTests {
    @Test("R7 a follower that does not track interest keeps its source's work going when its own follower is cancelled")
    func followerKeepsInterest() async throws {
        let (holder, holderResolver) = Promise<Int>.pending(tracksInterest: false)
        let (root, rootResolver) = Promise<Int>.pending()
        let rootCancelled = Locked(false)
        rootResolver.onCancel { rootCancelled.withLock { $0 = true } }
        let inner = root.then { $0 + 1 }
        let follower = holder.flatMap(on: .inline) { _ in inner }
        let (outer, outerResolver) = Promise<Int>.pending()
        outerResolver.resolve(with: follower)
        holderResolver.fulfill(0)
        outer.cancel()
        rootResolver.fulfill(5)
        #expect(try await follower.value == 6)
        #expect(!rootCancelled.current, "somebody still waits on root: its work must go on")
        await #expect { try await outer.value } throws: { $0.isCancellation }
    }

    @Test("R5 a cancel reaches a following descendant of a settled promise, and the promises that follow it")
    func cancelReachesFollowerThroughSettledLinks() async throws {
        let (start, startResolver) = Promise<Int>.pending()
        let (source, sourceResolver) = Promise<Int>.pending()
        let settledLink = start.then(on: .inline) { $0 }
        let follower = settledLink.flatMap(on: .inline) { _ in source }
        let (outer, outerResolver) = Promise<Int>.pending()
        outerResolver.resolve(with: follower)
        startResolver.fulfill(1)
        start.cancel()
        sourceResolver.fulfill(7)
        await #expect { try await follower.value } throws: { $0.isCancellation }
        await #expect { try await outer.value } throws: { $0.isCancellation }
    }

    @Test("R1 a late cancel leaves a settled follower and its own follower with one answer")
    func lateCancelIgnored() async throws {
        let (start, startResolver) = Promise<Int>.pending()
        let (source, sourceResolver) = Promise<Int>.pending()
        let follower = start.flatMap(on: .inline) { _ in source }
        let (outer, outerResolver) = Promise<Int>.pending()
        outerResolver.resolve(with: follower)
        startResolver.fulfill(0)
        sourceResolver.reject(TestError(id: 3))
        follower.cancel()
        await #expect(throws: TestError(id: 3)) { try await follower.value }
        await #expect(throws: TestError(id: 3)) { try await outer.value }
    }

    @Test("R2 .inline: a handler added after settlement runs inside its then, even while the settling thread runs earlier ones")
    func inlineLateHandlerRunsAtOnce() async throws {
        let (promise, resolver) = Promise<Int>.pending()
        let order = Locked<[Int]>([])
        // Plain gates, not promises: inline work that the blocked handler would start waits
        // until it returns (the inline trampoline).
        let firstStarted = Gate()
        let releaseFirst = Gate()
        promise.then(on: .inline) { _ in
            firstStarted.open()
            releaseFirst.wait()
            order.append(1)
        }
        let second = promise.then(on: .inline) { _ in order.append(2) }
        // Threads of their own, since they block: on Linux, Swift's cooperative pool (which runs
        // the task that unblocks them) draws on the threads Dispatch's global queues use.
        Thread { resolver.fulfill(0) }.start()
        await withCheckedContinuation { continuation in
            Thread {
                firstStarted.wait()
                continuation.resume()
            }.start()
        }
        let late = promise.then(on: .inline) { _ in order.append(3) }
        #expect(order.current == [3], "the late handler ran inside its then call")
        #expect(!late.isPending)
        releaseFirst.open()
        try await second.value
        #expect(order.current == [3, 1, 2], "the settling thread ran the earlier two in registration order")
    }

    @Test("R3 an intermediate follower settles with its source, also when looked at only afterwards")
    func intermediateObservedLater() async throws {
        let (source, resolver) = Promise<Int>.pending()
        let middleBox = Locked<Promise<Int>?>(nil)
        let outer = Promise(value: 0).then(on: .inline) { _ -> Promise<Int> in
            let middle = Promise(value: 0).then(on: .inline) { _ in source }
            middleBox.withLock { $0 = middle }
            return middle
        }
        let middle = try #require(middleBox.current)
        resolver.fulfill(7)
        #expect(try await outer.value == 7)
        #expect(try await middle.value == 7)
        #expect(middle.result.map { try? $0.get() } == 7)
    }

    @Test("R5 R7 cancelling an intermediate follower rejects its followers; the source goes on for its other waiter")
    func cancelIntermediate() async throws {
        let (source, keep) = Promise<Int>.pending()
        let other = source.then { $0 }
        let middle = Promise(value: 0).then(on: .inline) { _ in source }
        let outer = Promise(value: 0).then(on: .inline) { _ in middle }
        middle.cancel()
        await #expect { try await outer.value } throws: { $0.isCancellation }
        #expect(source.isPending, "the source itself is not cancelled while others wait on it")
        #expect(!other.isCancelled)
        keep.fulfill(1)
        #expect(try await other.value == 1)
    }
}
