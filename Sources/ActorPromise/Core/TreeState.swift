// The tree half of a promise's state.

/// The non-generic half of a promise's state: its place in the promise tree.
///
/// - Children are held while they, or their descendants, are pending, so that `cancel` reaches
///   them after this promise settled (R5). A node is *done* once it is settled and holds no
///   children; it then leaves its parent's list, so settled trees can be freed. The first child
///   is stored inline; the rest, if any, in the side object's ``ChildSet``, which is freed again
///   when it empties.
/// - Dependents (derived promises, adopters, awaiters) are counted for interest tracking (R7).
///
/// Transitions return what must happen next and ``PromiseCore`` carries it out, with the gate
/// held. The one write other threads can see is the side object's reference, made under
/// ``adoptionLock`` (cycle checks read `rare?.adoptee` under it).
@usableFromInline
struct TreeState {
    // Declared in this order so that the flags' byte ends the layout.
    /// The first live child; the others are in `rare?.moreChildren`.
    @usableFromInline var firstChild: (any PromiseNode)?
    /// The parts most promises never use (see ``RareTreeState``); `nil` until first needed.
    /// Written only under ``adoptionLock`` (and the gate), because cycle checks on other threads
    /// read `rare?.adoptee` under that lock.
    @usableFromInline var rare: RareTreeState?
    @usableFromInline var dependents: UInt32 = 0
    /// Seven flags in one byte (see ``TreeFlags``), at the bit positions ``PromiseStatus`` gives
    /// them, so that the status the state actor publishes is a mask of this byte and one of the
    /// state machine's. One byte instead of seven keeps the state actor within one malloc size
    /// class (memory per promise).
    @usableFromInline var flags: TreeFlags

    @inlinable
    init(isSettled: Bool, tracksInterest: Bool, observesCancellation: Bool = false, runsInline: Bool = false) {
        self.init(flags: Self.flags(
            isSettled: isSettled, tracksInterest: tracksInterest, observesCancellation: observesCancellation,
            runsInline: runsInline))
    }

    /// A tree state with no children and these flags (see ``flags(isSettled:tracksInterest:observesCancellation:runsInline:)``).
    @inlinable init(flags: TreeFlags) { self.flags = flags }

    /// A tree state with these flags and a side object made already (see
    /// ``RareTreeState/keeping(site:)``).
    @inlinable init(flags: TreeFlags, rare: RareTreeState?) {
        self.flags = flags
        self.rare = rare
    }

    /// The flags of a new promise.
    @inlinable
    static func flags(isSettled: Bool, tracksInterest: Bool, observesCancellation: Bool, runsInline: Bool) -> TreeFlags {
        TreeFlags(rawValue: (isSettled ? TreeFlags.settled.rawValue | TreeFlags.done.rawValue : 0)
            | (tracksInterest ? TreeFlags.tracksInterest.rawValue : 0)
            | (observesCancellation ? TreeFlags.observesCancellation.rawValue : 0)
            | (runsInline ? TreeFlags.runsInline.rawValue : 0))
    }

    /// The promise this one follows, while it follows one. Read it here only with the gate held;
    /// other threads use `rare?.adoptee` under ``adoptionLock``.
    @inlinable var adoptee: (any PromiseNode)? { rare?.adoptee }

    /// The side object, created if there is none yet. The caller holds ``adoptionLock``: cycle
    /// checks on other threads read `rare` under that lock.
    @usableFromInline
    mutating func rareHoldingLock() -> RareTreeState {
        if let rare { return rare }
        let box = RareTreeState()
        rare = box
        return box
    }

    /// The side object, created if there is none yet; with the gate held, not the lock. A new box
    /// is made outside ``adoptionLock`` and stored under it, so the lock is held for one store (why
    /// a lock at all: Benchmarks/README, *Why the core looks like this*).
    @usableFromInline
    mutating func rareMade() -> RareTreeState {
        if let rare { return rare }
        let box = RareTreeState()
        adoptionLock.withLock { rare = box }
        return box
    }

    /// Records `trace` as the path of this promise's failure (R16), unless it has one. The caller
    /// holds the gate.
    @usableFromInline
    mutating func recordTrace(_ trace: TraceNode) {
        adoptionLock.withLockUnscheduled {
            // A box without room for a trace is replaced by one with it, which takes its parts:
            // under the lock, which readers of the adoptee and the trace hold, and with the gate
            // held, which everything else needs.
            if rare?.isTraced != true {
                rare = rare.map { TracedRareTreeState(takingPartsOf: $0) } ?? TracedRareTreeState()
            }
            if let traced = rare?.traced, traced.storedTrace == nil { traced.storedTrace = trace }
        }
    }

    /// Sets the adoptee. The caller holds ``adoptionLock``.
    @usableFromInline
    mutating func setAdopteeHoldingLock(_ node: (any PromiseNode)?) {
        if let node {
            rareHoldingLock().adoptee = node
        } else {
            rare?.adoptee = nil
        }
    }

    /// Whether no child is live.
    @inlinable var hasNoChildren: Bool { firstChild == nil && rare?.moreChildren == nil }

    @inlinable
    mutating func insertChild(_ child: consuming any PromiseNode) {
        if firstChild == nil {
            firstChild = child
        } else {
            insertMoreChild(child)
        }
    }

    @usableFromInline
    mutating func insertMoreChild(_ child: consuming any PromiseNode) {
        if rare == nil { _ = rareMade() }
        // Through the stored reference, not a copy of it (a retain and a release per child).
        rare!.insertMoreChild(child)
    }

    /// Removes a child; returns whether it was there.
    mutating func removeChild(_ child: borrowing any PromiseNode) -> Bool {
        if let firstChild, firstChild === child {
            self.firstChild = nil
            return true
        }
        return rare?.removeMoreChild(child) ?? false
    }

    /// Whether `child` is one of this node's children.
    func hasChild(_ child: borrowing any PromiseNode) -> Bool {
        if let firstChild, firstChild === child { return true }
        return rare?.moreChildren?.contains(child) ?? false
    }

    /// Every live child.
    var allChildren: [any PromiseNode] {
        var nodes: [any PromiseNode] = []
        if let firstChild { nodes.append(firstChild) }
        if let more = rare?.moreChildren { nodes.append(contentsOf: more.all) }
        return nodes
    }

    /// Records a new child (and/or dependent). Returns whether this node had been done and must
    /// register with its own parent again.
    @inlinable
    mutating func add(child: consuming (any PromiseNode)?, dependent: Bool) -> Bool {
        if dependent { dependents += 1 }
        guard let child else { return false }
        insertChild(child)
        guard flags[.done] else { return false }
        flags[.done] = false
        return true
    }

    /// Starts following `source`, unless `source`'s chain of adoptees leads back to `follower`.
    ///
    /// Returns `nil` when following, or the length of the cycle it would close (R13). The walk
    /// and the write happen under ``adoptionLock``, so two promises that start following each
    /// other at the same moment cannot both miss the cycle. The walk is as long as the chain of
    /// promises that follow one another from `source`: none in the common case, where `source`
    /// is not itself following anything.
    @usableFromInline
    mutating func startFollowing(_ source: any PromiseNode, follower: ObjectIdentifier) -> Int? {
        adoptionLock.lock()
        defer { adoptionLock.unlock() }
        var length = 1
        var node: (any PromiseNode)? = source
        while let current = node {
            if ObjectIdentifier(current) == follower { return length }
            node = current.adopteeUnderAdoptionLock
            length += 1
        }
        setAdopteeHoldingLock(source)
        return nil
    }

    /// Records settlement. Returns whether this node is now done. Always inlined: its caller,
    /// the state machine's `settle`, is the one place that calls it, on every promise's path.
    @inlinable @inline(__always)
    mutating func settle() -> Bool {
        flags[.settled] = true
        if adoptee != nil { clearAdoptee() }
        guard hasNoChildren, !flags[.done] else { return false }
        flags[.done] = true
        return true
    }

    /// Applies a tree operation and returns what it leaves to do.
    mutating func apply(_ op: TreeOp) -> TreeStep {
        switch op {
        case .childDone(let child):
            return childDone(child)
        case .reattach(let child):
            if let rare, rare.takeEarly(EarlyReport(child, isDone: true)) { return .nothing }
            if hasChild(child) {
                // The child's "done" before this re-attach is still on its way (the child settled
                // with no children, then gained one on another thread, whose re-attach got here
                // first): remember it, so that the "done" does not drop a child that is not done.
                rareMade().early.append(EarlyReport(child, isDone: false))
                return .nothing
            }
            return add(child: child, dependent: false) ? .reattachUpward : .nothing
        case .dependentCancelled:
            // Counted only while it can still matter: a settled promise stays settled, and one
            // that does not track interest never will (so a combinator that lets go of its
            // settled inputs makes no side object).
            guard flags[.tracksInterest], !flags[.settled] else { return .nothing }
            let rare = rareMade()
            rare.cancelledDependents += 1
            return rare.cancelledDependents >= dependents ? .cancelSelf : .nothing
        }
    }

    /// ``apply(_:)`` for `.childDone(child)`: `child` reports that it and its descendants are
    /// settled. Borrows the child, so that the report of a child that is not parked (see
    /// ``PromiseNode/performChildDone(_:)``) retains nothing.
    mutating func childDone(_ child: borrowing any PromiseNode) -> TreeStep {
        // A re-attach that overtook this report found the child here and left it: this report
        // is the one it was ahead of, and the child, which is not done, stays.
        if let rare, !rare.early.isEmpty, rare.takeEarly(EarlyReport(child, isDone: false)) { return .nothing }
        guard removeChild(child) else {
            // The child's re-attach is still on its way (it registered a child, which settled
            // on another thread before the re-attach arrived here): remember the report, so
            // that the re-attach finds it and does not keep a child that is done.
            rareMade().early.append(EarlyReport(child, isDone: true))
            return .nothing
        }
        guard flags[.settled], hasNoChildren, !flags[.done] else { return .nothing }
        flags[.done] = true
        return .reportDone
    }

    /// Drops the adoptee; under ``adoptionLock``, since cycle checks read it from other threads.
    @usableFromInline
    mutating func clearAdoptee() {
        adoptionLock.withLock { rare?.adoptee = nil }
    }

    /// Marks the node cancelled. Returns the children to forward to, or `nil` if it had been
    /// cancelled before (a second `cancel` does nothing).
    mutating func cancel() -> [any PromiseNode]? {
        guard !flags[.cancelled] else { return nil }
        flags[.cancelled] = true
        return allChildren
    }
}
