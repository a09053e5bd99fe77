import Synchronization

// The walks over the promise tree: cancellation down it, "done" reports, re-attachment and
// lost interest up it. Each is a loop over an explicit work list: constant stack at any depth.

/// Cancels `node` and every descendant, with a work list instead of recursion.
///
/// - Parameter origin: Where the cancellation began, for its trace while traces are on (R16).
@usableFromInline
func cancelTree(_ node: any PromiseNode, reason: (any Error)?, origin: TraceCause? = nil) {
    forwardCancel(to: [node], reason: reason, origin: origin)
}

/// Cancels each of `nodes` and every descendant, with a work list instead of recursion.
///
/// Two phases: first every promise of the subtree is cancelled, then the effects are carried out
/// (observers notified, `onCancel` handlers run). So no handler that observes the cancellation
/// runs while part of the branch below it is still pending, and none can settle a promise that
/// the walk is about to cancel: a cancelled branch stays cancelled whatever its handlers return
/// (R5b).
///
/// Promises that lose their last interested dependent while the effects are carried out (the
/// promise a cancelled one followed, and the one that promise followed, down a recursive loop of
/// any depth) are cancelled by the outermost walk on this thread once its branch is done, in
/// the order they lost it (see ``loseInterest(_:)``): the stack does not grow with the chain.
@usableFromInline
func forwardCancel(to nodes: [any PromiseNode], reason: (any Error)?, origin: TraceCause? = nil) {
    let thread = ThreadState.current
    let isOutermost = !thread.isWalkingCancels
    thread.isWalkingCancels = true
    cancelBranch(nodes, reason: reason, origin: origin)
    guard isOutermost else { return }
    var next = 0
    while next < thread.cancelBacklog.count {
        let entry = thread.cancelBacklog[next]
        next += 1
        if let node = entry as? any PromiseNode {
            cancelBranch([node], reason: nil, origin: nil)
        } else {
            let traced = entry as! LostInterest
            cancelBranch([traced.node], reason: nil, origin: traced.cause)
        }
    }
    thread.cancelBacklog.removeAll()
    thread.isWalkingCancels = false
}

/// The two phases of ``forwardCancel(to:reason:)`` for one set of nodes.
private func cancelBranch(_ nodes: [any PromiseNode], reason: (any Error)?, origin: TraceCause?) {
    var work: [any PromiseNode] = []
    var effects: [() -> Void] = []
    // The promises the walk starts from take `origin`; their descendants carry their parent's
    // trace on (R16).
    for node in nodes.reversed() {
        node.cancel(reason: reason, origin: origin, forwardingInto: &work, then: &effects)
        while let next = work.popLast() { next.cancel(reason: reason, origin: nil, forwardingInto: &work, then: &effects) }
    }
    for carryOut in effects { carryOut() }
}

/// A promise a cancel walk must cancel next, with where its cancellation began (R16): queued
/// on the walk's backlog instead of the bare promise while traces are on.
private final class LostInterest {
    let node: any PromiseNode
    let cause: TraceCause

    init(_ node: any PromiseNode, cause: TraceCause) {
        self.node = node
        self.cause = cause
    }
}

/// Tells `node` that one of its dependents was cancelled; cancels it if that was its last
/// interested dependent and it tracks interest (R7). Inside a cancel walk the cancel joins that
/// walk's backlog (see ``forwardCancel(to:reason:)``).
///
/// - Parameter cause: Where the cancellation began, for its trace while traces are on (R16): the
///   dependent that let go.
@usableFromInline
func loseInterest(_ node: any PromiseNode, cause: TraceCause?) {
    guard node.performTree(.dependentCancelled) == .cancelSelf else { return }
    let thread = ThreadState.current
    if thread.isWalkingCancels {
        if let cause {
            thread.cancelBacklog.append(LostInterest(node, cause: cause))
        } else {
            thread.cancelBacklog.append(node)
        }
    } else {
        cancelTree(node, reason: nil, origin: cause)
    }
}

/// Reports `node` done to its parent, and so on up while parents become done in turn.
@usableFromInline
func reportDoneUpward(from node: any PromiseNode) {
    var child = node
    while let parent = child.parentNode, parent.performChildDone(child) == .reportDone {
        child = parent
    }
}

/// Registers `node` with its parent again after it had been done, and so on up.
@usableFromInline
func reattachUpward(from node: any PromiseNode) {
    var child = node
    while let parent = child.parentNode, parent.performTree(.reattach(child)) == .reattachUpward {
        child = parent
    }
}
