import Testing
import ActorPromise

private func isCancellation(_ error: any Error) -> Bool { error.isCancellation }

@Suite("R5 cancellation tree, R6 forwarding, R7 interest")
struct CancellationTests {
    @Test("R5 cancel rejects a pending promise with a distinct cancellation error and a reason")
    func cancelPending() async throws {
        let (promise, _resolver) = Promise<Int>.pending()
        promise.cancel(reason: TestError(id: 3))
        await #expect {
            try await promise.value
        } throws: { error in
            let error = error as? PromiseError
            return error?.code == .cancelled && (error?.reason as? TestError) == TestError(id: 3)
        }
        _ = _resolver
    }

    @Test("R5 cancel forwards to children and grandchildren, never to the parent")
    func forwardsDownNotUp() async throws {
        let (root, resolver) = Promise<Int>.pending()
        let child = root.then { $0 + 1 }
        let grandchild = child.then { $0 + 1 }
        let sibling = root.then { $0 + 100 }
        child.cancel()
        await #expect(throws: (any Error).self) { try await grandchild.value }
        #expect(grandchild.isCancelled)
        #expect(root.isPending && !root.isCancelled)
        resolver.fulfill(1)
        #expect(try await sibling.value == 101, "a sibling branch still gets the value")
        #expect(try await root.value == 1)
    }

    @Test("R5 cancelling a settled promise still reaches its pending descendants")
    func forwardsThroughSettled() async throws {
        let (inner, innerResolver) = Promise<Int>.pending()
        let root = Promise(value: 1)
        let child = root.then(on: .inline) { $0 }
        let waiting = child.then { _ in inner }
        _ = try await child.value
        root.cancel()
        #expect(try await root.value == 1, "a settled promise keeps its value")
        await #expect { try await waiting.value } throws: { isCancellation($0) }
        innerResolver.fulfill(2)
    }

    @Test("R5 a cancelled branch skips its handler")
    func cancelledBranchSkipsHandler() async throws {
        let (root, resolver) = Promise<Int>.pending()
        let ran = Locked(false)
        let branch = root.then { _ in ran.withLock { $0 = true } }
        let other = root.then { _ in }  // still wants the value, so the root is not cancelled (R7)
        branch.cancel()
        resolver.fulfill(1)
        try await other.value
        await #expect { try await branch.value } throws: { isCancellation($0) }
        #expect(!ran.current)
    }

    @Test("R5 a second cancel does nothing; parent and root navigate the tree")
    func navigation() async throws {
        let (root, _resolver) = Promise<Int>.pending()
        let child = root.then { $0 }
        let grandchild = child.then { $0 }
        #expect(root.parent == nil)
        #expect(grandchild.parent == AnyPromise(child))
        #expect(grandchild.root == AnyPromise(root))
        #expect(grandchild.root.refers(to: root))
        grandchild.root.cancel()
        grandchild.root.cancel()
        await #expect { try await grandchild.value } throws: { isCancellation($0) }
        _ = _resolver
    }

    @Test("R6 the cancellation callback runs once, only when cancelled while pending")
    func cancellationCallback() async throws {
        let calls = Locked(0)
        let (promise, resolver) = Promise<Int>.pending()
        resolver.onCancel { calls.increment() }
        promise.cancel()
        promise.cancel()
        promise.then { $0 }.cancel()
        #expect(calls.current == 1)

        let late = Locked(0)
        resolver.onCancel { late.increment() }
        #expect(late.current == 1, "registered after a pending cancellation: runs at once")

        let (fulfilled, fulfilledResolver) = Promise<Int>.pending()
        let never = Locked(0)
        fulfilledResolver.onCancel { never.increment() }
        fulfilledResolver.fulfill(1)
        fulfilled.cancel()
        #expect(never.current == 0)
    }

    @Test("R7 a root tracking interest cancels itself when its last child is cancelled")
    func interestTracking() async throws {
        let stopped = Locked(0)
        let (root, resolver) = Promise<Int>.pending(tracksInterest: true)
        resolver.onCancel { stopped.increment() }
        let first = root.then { $0 }
        let second = root.then { $0 }
        first.cancel()
        #expect(root.isPending, "a live child still wants the value")
        #expect(stopped.current == 0)
        second.cancel()
        #expect(root.isCancelled)
        #expect(stopped.current == 1)
    }

    @Test("R7 without interest tracking, cancelling every child leaves the root alone")
    func noInterestTracking() async throws {
        let (root, _resolver) = Promise<Int>.pending(tracksInterest: false)
        root.then { $0 }.cancel()
        #expect(root.isPending)
        _ = _resolver
    }

    @Test("R7 an awaiter counts as interest; cancelling its task cancels only its branch")
    func awaiterInterest() async throws {
        let (root, resolver) = Promise<Int>.pending(tracksInterest: true)
        let stopped = Locked(0)
        resolver.onCancel { stopped.increment() }
        let task = Task { try await root.value }
        let other = root.then { $0 }
        task.cancel()
        await #expect { try await task.value } throws: { isCancellation($0) }
        #expect(root.isPending, "another child still wants the value")
        other.cancel()
        #expect(stopped.current == 1)
    }
}
