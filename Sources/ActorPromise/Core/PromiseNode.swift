/// The type-erased face of a promise's state actor, used to walk the promise tree: cancellation
/// travels down it, "done" reports and lost interest travel up.
///
/// Walks reach promises whose value type is unknown, so every requirement except `cancel` and
/// `anyOutcome` is implemented with non-generic state only (``TreeState``): unspecialized generic
/// code would pay a metadata look-up per generic value it touches.
@usableFromInline
protocol PromiseNode: OutcomeObserver {
    /// The promise this one was derived from (`then` and friends), if any.
    var parentNode: (any PromiseNode)? { get }
    /// Whether the promise is still pending (a snapshot).
    var isPending: Bool { get }
    /// Whether `cancel` has reached this promise (a snapshot).
    var isCancelled: Bool { get }
    /// The outcome as a type-erased result, if settled (a snapshot).
    var anyOutcome: Outcome<any Sendable>? { get }
    /// Cancels this promise; children to forward to are appended to `work` when known now, and
    /// what remains to be done (notifying observers, …) to `effects`, to run once the whole
    /// subtree is cancelled.
    ///
    /// `origin` says where the cancellation began, for the promises a walk starts from, while
    /// failure traces are on (R16); the others carry their parent's trace on.
    func cancel(
        reason: (any Error)?, origin: TraceCause?, forwardingInto work: inout [any PromiseNode], then effects: inout [() -> Void])
    /// The path of this promise's failure, if it failed while traces were on (R16). A snapshot,
    /// read under ``adoptionLock``.
    var traceNode: TraceNode? { get }
    /// Where this promise was made, and by which operation: known in debug builds, and in release
    /// builds for promises made while traces were on.
    var traceSite: PromiseSite { get }
    /// The promise this one follows (adoption), read with ``adoptionLock`` held.
    var adopteeUnderAdoptionLock: (any PromiseNode)? { get }
    /// Applies a tree operation now and returns what it leaves to do, or parks it for the thread
    /// holding the gate, which then does that itself (`nil`).
    func performTree(_ op: TreeOp) -> TreeStep?
    /// ``performTree(_:)`` for `.childDone(child)`, borrowing the child: the report every link of
    /// a chain and every handler of a fan-out makes retains the child only if it must be parked.
    func performChildDone(_ child: borrowing any PromiseNode) -> TreeStep?
    /// Where this promise sits in its parent's ``ChildSet``: a hint, written and read only by the
    /// thread that holds the parent's gate.
    var slotInParent: UInt32 { get set }
    /// Enters the gate if it is free and removes `child` from the children; for ``HeldGates``
    /// alone, which leaves the gate when it ends. Returns `nil` if the gate is taken, else whether
    /// `child` was a child.
    func enterGateIfFree(detaching child: any PromiseNode) -> Bool?
    /// Leaves the gate ``enterGateIfFree()`` entered; for ``HeldGates`` alone.
    func leaveGate()
    /// Puts back a child that ``detachChildHoldingGate(_:)`` removed, with the gate held by a
    /// ``HeldGates``.
    func attachChildHoldingGate(_ child: any PromiseNode)
    /// Whether this promise is settled and holds no child, with the gate held by a ``HeldGates``.
    func isSettledWithoutChildrenHoldingGate() -> Bool
    /// Whether this promise's reference to its parent is the only one (or it has none).
    func holdsOnlyReferenceToParent() -> Bool
}

/// Operations on the non-generic half of a promise's state.
@usableFromInline
enum TreeOp: Sendable {
    /// A child reports that it and its descendants are settled. May leave ``TreeStep/reportDone``.
    case childDone(any PromiseNode)
    /// A child registers again after this node had reported itself done. May leave
    /// ``TreeStep/reattachUpward``.
    case reattach(any PromiseNode)
    /// A dependent was cancelled. May leave ``TreeStep/cancelSelf`` (interest, R7).
    case dependentCancelled
}

/// What a tree operation leaves to do once the gate is left.
@usableFromInline
enum TreeStep: Sendable, Equatable {
    /// Nothing.
    case nothing
    /// This node became done (settled, no pending children): tell its parent.
    case reportDone
    /// This node had been done and gained a child: register with its own parent again.
    case reattachUpward
    /// Every interested dependent was cancelled: cancel this promise and its work.
    case cancelSelf
}
