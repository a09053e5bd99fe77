/// Carrying out effects, and the tree walks. Every walk is a loop over an explicit work list, so
/// trees and chains of any depth are handled in constant stack.
extension StateActor where Machine == PromiseStateMachine<Value> {
    /// Carries out what a transition decided, with the gate already left.
    @inlinable
    nonisolated func carryOut(_ effects: consuming PromiseEffects<Value>) {
        // The lazy body waits in the promise's hook store (see `CoreHooks`); the rare effects
        // (cancellation, adoption) share one box: the common path tests a bit and the box once.
        if effects.runsLazyBody { runLazyBody(link.takeBody(as: LazyBody<Value>.self).run) }
        if effects.reportsAbandonment { reportAbandoned() }
        let rare = effects.rare
        if let rare {
            if let cancellation = rare.cancellation {
                if let handler = cancellation.handler { handler() }
                if !cancellation.children.isEmpty { forwardCancel(to: cancellation.children, reason: cancellation.reason) }
            }
        }
        // Moved out, not copied (a retain and a release per observer), and the closure
        // captures only what it needs: capturing `effects` would copy all of it.
        var observers = effects.observers.take()
        if !observers.isEmpty {
            let holdsDelivery = effects.holdsDelivery
            if holdsDelivery, observers.count == 1 {
                // One observer, off this thread (a delivery is held only for those): nothing runs
                // inline here, so no drain loop is needed.
                observers.deliver(from: self, holdsDelivery: true)
            } else {
                withInlineBatch { observers.deliver(from: self, holdsDelivery: holdsDelivery) }
            }
        }
        if let rare {
            if let adoption = rare.adoption { carryOut(adoption) }
            if let cancellation = rare.cancellation {
                if cancellation.parentLostInterest, let parent { loseInterest(parent) }
                if let adoptee = cancellation.adopteeLostInterest { loseInterest(adoptee) }
            }
        }
        if effects.reportDone { reportDone() }
        if effects.reattach { reattachUpward(from: self) }
    }

    /// Carries out what adoption decided: observing the source, or refusing it.
    ///
    /// The follower is its own observer of the source, as a derived promise is of its parent: its
    /// handler has run (or it has none), so its link is free; the source hands it over to `.inline`
    /// and its run takes the source's outcome (``PromiseOp/adopteeSettled``). Inlinable, so that
    /// the runner is made where `Value` is known: it then captures nothing and allocates nothing.
    @inlinable
    nonisolated func carryOut(_ adoption: AdoptionEffects<Value>) {
        if let source = adoption.subscribeTo {
            // Safety: only the thread whose `follow` succeeded gets here, once; nothing else
            // touches the link of a promise whose handler has run, or of one without a handler.
            link.context = InlineContext.shared
            link.runner = { follower in Link.promise(follower, as: Value.self).send(.adopteeSettled) }
            source.observe(self)
        }
        if let unwanted = adoption.unwanted { unwanted.refuse() }
    }

    /// Tells this promise that a promise which would have followed it was cancelled first: it
    /// gains and at once loses a dependent, so it cancels itself (and its work) unless somebody
    /// else waits for it (R7, B7).
    @usableFromInline
    nonisolated func refuse() {
        addDependent()
        loseInterest(self)
    }

    /// Cancels this promise and, through an explicit work list, every descendant (R5).
    @usableFromInline
    nonisolated func cancel(reason: (any Error)?) {
        cancelTree(self, reason: reason)
    }

    /// One step of a cancel walk: cancels this promise, queues its children on `work` and its
    /// effects on `effects`.
    @usableFromInline
    nonisolated func cancelStep(
        reason: (any Error)?, forwardingInto work: inout [any PromiseNode], then effects: inout [() -> Void]
    ) {
        // A handler that observes outcomes reports its parent's settled outcome when the cancel
        // comes after it (R1, B5): read before the cancel, so either order is a true one.
        let afterSource = observesCancellation && parent.map { !$0.isPending } ?? false
        guard var cancelled = perform(.cancel(reason: reason, afterSource: afterSource)) else { return }
        if let cancellation = cancelled.cancellation, !cancellation.children.isEmpty {
            work.append(contentsOf: cancellation.children)
            cancelled.cancellation = cancellation.withoutChildren()
        }
        effects.append { self.carryOut(cancelled) }
    }

    /// Hands the abandonment to ``PromiseDiagnostics`` (R8), before the observers learn of it.
    /// Out of line: it is rare.
    @usableFromInline
    nonisolated func reportAbandoned() {
        if case .failure(let error)? = settledOutcome, let error = error as? PromiseError, error.code == .abandoned {
            PromiseDiagnostics.reportAbandoned(error)
        }
    }

    /// Runs a lazy body with a fresh resolver (R10).
    @usableFromInline
    nonisolated func runLazyBody(_ body: @Sendable (Resolver<Value>) throws -> Void) {
        let resolver = Resolver(core: self)
        do {
            try body(resolver)
        } catch {
            resolver.reject(error)
        }
    }
}

extension StateActor {
    /// Reports this promise done to its parent, and on up while parents become done in turn.
    /// The first hop reads the parent in place: this promise holds it for as long as it lives,
    /// so no retain is needed (a fan-out reports every handler's child done to one root).
    @inlinable
    nonisolated func reportDone() {
        guard parent != nil else { return }
        let step = parent!.performTree(.childDone(self))
        if step == .reportDone, let parent { reportDoneUpward(from: parent) }
    }
}

/// Cancels `node` and every descendant, with a work list instead of recursion.
@usableFromInline
func cancelTree(_ node: any PromiseNode, reason: (any Error)?) {
    forwardCancel(to: [node], reason: reason)
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
func forwardCancel(to nodes: [any PromiseNode], reason: (any Error)?) {
    let thread = ThreadState.current
    let isOutermost = !thread.isWalkingCancels
    thread.isWalkingCancels = true
    cancelBranch(nodes, reason: reason)
    guard isOutermost else { return }
    var next = 0
    while next < thread.cancelBacklog.count {
        let node = thread.cancelBacklog[next] as! any PromiseNode
        next += 1
        cancelBranch([node], reason: nil)
    }
    thread.cancelBacklog.removeAll()
    thread.isWalkingCancels = false
}

/// The two phases of ``forwardCancel(to:reason:)`` for one set of nodes.
private func cancelBranch(_ nodes: [any PromiseNode], reason: (any Error)?) {
    var work = nodes
    var effects: [() -> Void] = []
    while let next = work.popLast() { next.cancel(reason: reason, forwardingInto: &work, then: &effects) }
    for carryOut in effects { carryOut() }
}

/// Tells `node` that one of its dependents was cancelled; cancels it if that was its last
/// interested dependent and it tracks interest (R7). Inside a cancel walk the cancel joins that
/// walk's backlog (see ``forwardCancel(to:reason:)``).
@usableFromInline
func loseInterest(_ node: any PromiseNode) {
    guard node.performTree(.dependentCancelled) == .cancelSelf else { return }
    let thread = ThreadState.current
    if thread.isWalkingCancels {
        thread.cancelBacklog.append(node)
    } else {
        cancelTree(node, reason: nil)
    }
}

/// Reports `node` done to its parent, and so on up while parents become done in turn.
@usableFromInline
func reportDoneUpward(from node: any PromiseNode) {
    var child = node
    while let parent = child.parentNode, parent.performTree(.childDone(child)) == .reportDone {
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
