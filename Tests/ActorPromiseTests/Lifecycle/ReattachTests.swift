import Testing
@testable import ActorPromise

/// Waits until every watched object was freed (polling: a release has no event to wait for).
func waitUntilFreed(_ watched: [WeakReference]) async -> Bool {
    for _ in 0..<1_000 {
        if watched.allSatisfy({ $0.object == nil }) { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return false
}


@Suite("Leaks: a done promise that gains a child")
struct ReattachReleaseTests {
    /// The abandonments these tests provoke are recorded, not printed as warnings.
    init() { AbandonmentLog.install() }

    @Test("a settled promise whose child gains a child while settling on the pool is freed every time (5,000 rounds)")
    func reattachRace() async throws {
        var watched: [WeakReference] = []
        for _ in 0..<5_000 {
            let root = Promise<Int>(error: TestError())
            // The pool settles `middle` while this thread registers `end` on it: `middle` may be
            // done already and must register with `root` again before `end` can settle.
            let middle = root.then { $0 + 1 }
            let end = middle.catch { _ in }
            try await end.value
            watched.append(WeakReference(root.core))
        }
        #expect(await waitUntilFreed(watched), "\(watched.filter { $0.object != nil }.count) of 5,000 roots leaked")
    }
}

@Suite("Tree state: a done report and a re-attach that overtake each other")
struct EarlyDoneTests {
    /// The abandonments these tests provoke are recorded, not printed as warnings.
    init() { AbandonmentLog.install() }

    @Test("the late re-attach of a child already reported done is not kept; in the usual order it is kept, then dropped")
    func earlyDoneThenReattach() {
        let parent = PromiseCore<Int>(PromiseStateMachine(outcome: .success(1)))
        let child = PromiseCore<Int>(PromiseStateMachine(outcome: .success(2)), parent: parent)
        var tree = TreeState(isSettled: true, tracksInterest: true)
        // Overtaken: the child's "done" arrives first, then its re-attach.
        #expect(tree.apply(.childDone(child)) == .nothing)
        #expect(tree.apply(.reattach(child)) == .nothing, "a done child must not be kept")
        #expect(tree.hasNoChildren)
        // The usual order: re-attached (the parent must register upward again), then done.
        #expect(tree.apply(.reattach(child)) == .reattachUpward)
        #expect(!tree.hasNoChildren)
        #expect(tree.apply(.childDone(child)) == .reportDone, "the parent is done again")
        #expect(tree.hasNoChildren)
    }

    @Test("a re-attach that overtakes the child's earlier done keeps the child: a cancel still reaches it")
    func earlyReattachThenDone() {
        let parent = PromiseCore<Int>(PromiseStateMachine(outcome: .success(1)))
        let first = PromiseCore<Int>(PromiseStateMachine(outcome: .success(2)), parent: parent)
        let second = PromiseCore<Int>(PromiseStateMachine(outcome: .success(3)), parent: parent)
        var tree = TreeState(isSettled: true, tracksInterest: true)
        #expect(tree.apply(.reattach(first)) == .reattachUpward)
        #expect(tree.apply(.reattach(second)) == .nothing)
        // `second` settled with no children ("done", in flight), then gained a child on another
        // thread, whose re-attach arrives first; then the "done".
        #expect(tree.apply(.reattach(second)) == .nothing)
        #expect(tree.apply(.childDone(second)) == .nothing)
        #expect(tree.allChildren.contains { $0 === second }, "a child that is not done was dropped")
        // Its next "done" is a real one.
        #expect(tree.apply(.childDone(second)) == .nothing)
        #expect(tree.apply(.childDone(first)) == .reportDone)
        #expect(tree.hasNoChildren)
    }
}
