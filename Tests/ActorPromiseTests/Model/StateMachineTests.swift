import Testing
@testable import ActorPromise

/// The two halves of a promise's state, driven directly: no threads, no actors.
@Suite("Promise state machine")
struct StateMachineTests {
    /// The abandonments these tests provoke are recorded, not printed as warnings.
    init() { AbandonmentLog.install() }

    static func probe() -> Observer<Int> { CallbackObserver.make { _ in } }
    static func pendingTree(tracksInterest: Bool = false) -> TreeState {
        TreeState(isSettled: false, tracksInterest: tracksInterest)
    }

    @Test("the published status carries the tree's and the machine's flags at their own bits, and keeps the fixed ones")
    func statusBits() {
        #expect(TreeFlags.settled.rawValue == PromiseStatus.settled.rawValue)
        #expect(TreeFlags.cancelled.rawValue == PromiseStatus.cancelled.rawValue)
        #expect(TreeFlags.tracksInterest.rawValue == PromiseStatus.tracksInterest.rawValue)
        #expect(TreeFlags.observesCancellation.rawValue == PromiseStatus.observesCancellation.rawValue)
        #expect(TreeFlags.runsInline.rawValue == PromiseStatus.runsInline.rawValue)
        var tree = TreeState(isSettled: false, tracksInterest: true, observesCancellation: true, runsInline: false)
        var hooks = TestHookStore()
        var machine = PromiseStateMachine<Int>(hook: .lazy)
        let registered = machine.apply(.addDependent, tree: &tree, hooks: &hooks)
        #expect(registered.status == [.tracksInterest, .observesCancellation])
        let cancelled = machine.apply(.cancel(reason: nil), tree: &tree, hooks: &hooks)
        #expect(cancelled.status == [.settled, .cancelled, .cancelledWhilePending, .tracksInterest, .observesCancellation])
        #expect(machine.hook == .none, "the hook's bits change without touching the flags beside them")
        #expect(machine.flags[.cancelledWhilePending] && !machine.flags[.delivering] && !machine.flags[.orderedObserver])
        #expect(tree.flags[.settled] && tree.flags[.cancelled] && tree.flags[.rejected] && tree.flags[.tracksInterest])
    }

    @Test("R1 B5 a cancel after the source settled is published with the cancel, in one transition; a later cancel changes nothing")
    func cancelledAfterSource() {
        var tree = TreeState(isSettled: false, tracksInterest: false, observesCancellation: true, runsInline: false)
        var hooks = TestHookStore()
        var machine = PromiseStateMachine<Int>()
        let cancelled = machine.apply(.cancel(reason: nil, afterSource: true), tree: &tree, hooks: &hooks)
        #expect(cancelled.status == [.settled, .cancelled, .cancelledWhilePending, .cancelledAfterSource, .observesCancellation])
        #expect(machine.flags[.cancelledAfterSource] && machine.flags[.cancelledWhilePending] && !machine.flags[.delivering])
        let again = machine.apply(.cancel(reason: nil, afterSource: false), tree: &tree, hooks: &hooks)
        #expect(again.status.contains(.cancelledAfterSource), "a second cancel does not clear it")

        var otherTree = TreeState(isSettled: false, tracksInterest: false, observesCancellation: true, runsInline: false)
        var before = PromiseStateMachine<Int>()
        let early = before.apply(.cancel(reason: nil), tree: &otherTree, hooks: &hooks)
        #expect(!early.status.contains(.cancelledAfterSource), "a cancel before the source settled sees the cancellation")
    }

    @Test("R1 settle once; the second settle has no effect")
    func settleOnce() throws {
        var tree = Self.pendingTree()
        var machine = PromiseStateMachine<Int>()
        let first = machine.settle(.success(1), tree: &tree)
        let second = machine.settle(.success(2), tree: &tree)
        #expect(first.settled)
        #expect(!second.settled)
        #expect(try machine.outcome?.get() == 1)
        #expect(tree.flags[.settled])
    }

    @Test("R2 observers registered while pending are handed out at settlement, later ones at once")
    func observersHandedOut() {
        var tree = Self.pendingTree()
        var machine = PromiseStateMachine<Int>()
        let early = machine.register(Self.probe(), child: nil, dependent: false, tree: &tree)
        let settled = machine.settle(.success(1), tree: &tree)
        #expect(early.observers.isEmpty)
        #expect(!settled.observers.isEmpty)
        let late = machine.register(Self.probe(), child: nil, dependent: false, tree: &tree)
        #expect(!late.observers.isEmpty && !late.settled, "handed out at once by a registration")
    }

    @Test("R5 cancel settles a pending promise once and reports lost interest")
    func cancelPending() {
        var tree = Self.pendingTree()
        var machine = PromiseStateMachine<Int>()
        let effects = machine.cancel(reason: nil, tree: &tree)
        #expect(effects.cancellation?.parentLostInterest == true)
        #expect(tree.flags[.cancelled])
        #expect(effects.settled)
        #expect(machine.outcome.map { (try? $0.get()) == nil } == true)
        let again = machine.cancel(reason: nil, tree: &tree)
        #expect(again.cancellation?.parentLostInterest != true && !again.settled)
    }

    @Test("R5 cancel of a settled promise keeps the outcome")
    func cancelSettled() throws {
        var tree = TreeState(isSettled: true, tracksInterest: false)
        var machine = PromiseStateMachine<Int>(outcome: .success(3))
        let effects = machine.cancel(reason: nil, tree: &tree)
        #expect(!effects.settled && effects.cancellation?.parentLostInterest != true)
        #expect(try machine.outcome?.get() == 3)
    }

    @Test("R8 abandonment rejects and asks for the report only a promise still pending and following nothing")
    func abandonOnlyPending() throws {
        let abandoned = PromiseError(.abandoned)
        var hooks = TestHookStore()
        var pendingTree = Self.pendingTree()
        var pending = PromiseStateMachine<Int>()
        let effects = pending.apply(.abandon(abandoned), tree: &pendingTree, hooks: &hooks)
        #expect(effects.settled && effects.reportsAbandonment)
        #expect { try pending.outcome?.get() } throws: { ($0 as? PromiseError)?.code == .abandoned }

        var settledTree = Self.pendingTree()
        var settled = PromiseStateMachine<Int>()
        _ = settled.apply(.settle(.success(1)), tree: &settledTree, hooks: &hooks)
        let late = settled.apply(.abandon(abandoned), tree: &settledTree, hooks: &hooks)
        #expect(!late.settled && !late.reportsAbandonment, "a settlement that reached the gate first wins, with no report")
        #expect(try settled.outcome?.get() == 1)

        let (source, sourceResolver) = Promise<Int>.pending()
        var followingTree = Self.pendingTree()
        var following = PromiseStateMachine<Int>()
        _ = following.apply(.follow(source.core, follower: ObjectIdentifier(sourceResolver)), tree: &followingTree, hooks: &hooks)
        let whileFollowing = following.apply(.abandon(abandoned), tree: &followingTree, hooks: &hooks)
        #expect(!whileFollowing.settled && !whileFollowing.reportsAbandonment, "it follows a promise that can still settle it")
        #expect(following.outcome == nil)
        sourceResolver.fulfill(2)
    }

    @Test("R6 the cancellation handler is handed out only with a cancellation of a pending promise")
    func cancelHandler() {
        var tree = Self.pendingTree()
        var machine = PromiseStateMachine<Int>()
        var hooks = TestHookStore()
        _ = machine.onCancel({}, hooks: &hooks)
        #expect(hooks.closure != nil, "kept in the store while pending")
        let cancelled = machine.cancel(reason: nil, tree: &tree, hooks: &hooks)
        #expect(hooks.closure == nil, "handed out, not kept")
        let late = machine.onCancel({}, hooks: &hooks)
        #expect(cancelled.cancellation?.handler != nil)
        #expect(late.cancellation?.handler != nil, "registered after the cancellation: at once")
        #expect(hooks.closure == nil)
        var settledTree = Self.pendingTree()
        var settled = PromiseStateMachine<Int>()
        var settledHooks = TestHookStore()
        _ = settled.onCancel({}, hooks: &settledHooks)
        _ = settled.settle(.success(1), tree: &settledTree, hooks: &settledHooks)
        #expect(settledHooks.closure == nil, "settling drops a handler that can no longer run")
        let never = settled.onCancel({}, hooks: &settledHooks)
        #expect(never.cancellation?.handler == nil && settledHooks.closure == nil)
    }

    @Test("R7 interest: cancel itself only when every dependent was cancelled")
    func interest() {
        var tree = Self.pendingTree(tracksInterest: true)
        _ = tree.add(child: nil, dependent: true)
        _ = tree.add(child: nil, dependent: true)
        let afterFirst = tree.apply(.dependentCancelled)
        let afterSecond = tree.apply(.dependentCancelled)
        #expect(afterFirst == .nothing)
        #expect(afterSecond == .cancelSelf)
        var untracked = Self.pendingTree()
        _ = untracked.add(child: nil, dependent: true)
        let untrackedResult = untracked.apply(.dependentCancelled)
        #expect(untrackedResult == .nothing)
    }

    @Test("R10 the lazy body is handed out with the first observer only")
    func lazyHook() {
        var tree = Self.pendingTree()
        var machine = PromiseStateMachine<Int>(hook: .lazy)
        let first = machine.register(Self.probe(), child: nil, dependent: false, tree: &tree)
        let second = machine.register(Self.probe(), child: nil, dependent: false, tree: &tree)
        #expect(first.runsLazyBody)
        #expect(!second.runsLazyBody)
        var cancelledTree = Self.pendingTree()
        var cancelled = PromiseStateMachine<Int>(hook: .lazy)
        var hooks = TestHookStore(closure: ErasedClosure(LazyBody<Int> { _ in }))
        _ = cancelled.cancel(reason: nil, tree: &cancelledTree, hooks: &hooks)
        let late = cancelled.register(Self.probe(), child: nil, dependent: false, tree: &cancelledTree)
        #expect(hooks.closure == nil, "a lazy promise cancelled before its first observer drops its body")
        #expect(!late.runsLazyBody, "and never runs it")
    }

    @Test("a settled node without children is done; a child makes it reattach; the child's report makes it done again")
    func doneAndReattach() {
        let child = PromiseCore<Int>(PromiseStateMachine())
        var tree = Self.pendingTree()
        let done = tree.settle()
        let reattach = tree.add(child: child, dependent: true)
        let doneAgain = tree.apply(.childDone(child))
        #expect(done, "settled with no children: done")
        #expect(reattach, "a new child undoes done: reattach")
        #expect(doneAgain == .reportDone, "its report makes the node done again")
    }
}
