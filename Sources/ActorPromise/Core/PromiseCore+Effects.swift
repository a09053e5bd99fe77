import Synchronization

// Carrying out what a transition decided, once the gate is left: delivering observers, running
// a lazy body, adoption, cancellation's steps, reports up the tree.

extension StateActor where Machine == PromiseStateMachine<Value> {
    /// Carries out what a transition decided, with the gate already left.
    @inlinable
    nonisolated func carryOut(_ effects: consuming PromiseEffects<Value>) {
        // The lazy body waits in the promise's hook store (see `CoreHooks`); the rare effects
        // (cancellation, adoption) share one box: the common path tests a bit and the box once.
        if effects.runsLazyBody { runLazyRunner() }
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
                if cancellation.parentLostInterest, let parent { loseInterest(parent, cause: lostInterestCause) }
                if let adoptee = cancellation.adopteeLostInterest { loseInterest(adoptee, cause: lostInterestCause) }
            }
        }
        if effects.reportDone { reportDone() }
        if effects.reattach { reattachUpward(from: self) }
    }

    /// Runs the lazy link's runner, written with the promise where `Resolver` is known: it takes
    /// the body from the hook store and runs it with a fresh resolver (R10). Out of line: rare,
    /// and kept out of every transition's inlined `carryOut`.
    @usableFromInline @inline(never)
    nonisolated func runLazyRunner() {
        if let runner = link.runner.take() { runner(self) }
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
        loseInterest(self, cause: lostInterestCause)
    }

    /// Cancels this promise and, through an explicit work list, every descendant (R5).
    ///
    /// - Parameter origin: Where the cancellation began, for its trace (R16).
    @usableFromInline
    nonisolated func cancel(reason: (any Error)?, origin: TraceCause? = nil) {
        cancelTree(self, reason: reason, origin: origin)
    }

    /// One step of a cancel walk: cancels this promise, queues its children on `work` and its
    /// effects on `effects`.
    @usableFromInline
    nonisolated func cancelStep(
        reason: (any Error)?, origin: TraceCause?, forwardingInto work: inout [any PromiseNode], then effects: inout [() -> Void]
    ) {
        // A handler that observes outcomes reports its parent's settled outcome when the cancel
        // comes after it (R1, B5): read before the cancel, so either order is a true one.
        let afterSource = observesCancellation && parent.map { !$0.isPending } ?? false
        let op: PromiseOp<Value> = if tracesAreOn {
            .tracedCancel(TracedCancel(reason: reason, afterSource: afterSource, trace: cancellationTrace(origin: origin)))
        } else {
            .cancel(reason: reason, afterSource: afterSource)
        }
        guard var cancelled = perform(op) else { return }
        if let cancellation = cancelled.cancellation, !cancellation.children.isEmpty {
            work.append(contentsOf: cancellation.children)
            cancelled.cancellation = cancellation.withoutChildren()
        }
        effects.append { self.carryOut(cancelled) }
    }

    /// The trace of a cancellation reaching this promise (R16): it begins here (`origin`), or it
    /// came from the parent, whose own cancel ran first in the walk.
    @usableFromInline
    nonisolated func cancellationTrace(origin: TraceCause?) -> TraceNode {
        let site = traceSite
        if let origin { return TraceNode(cause: origin, site: site, isCancellation: true) }
        if let parent, let inherited = parent.traceNode, inherited.isCancellation {
            return inherited.passing(through: site)
        }
        return TraceNode(cause: .cancelled(PromiseSite()), site: site, isCancellation: true)
    }

    /// Hands the abandonment to ``PromiseDiagnostics`` (R8), before the observers learn of it.
    /// Out of line: it is rare.
    @usableFromInline
    nonisolated func reportAbandoned() {
        if case .failure(let error)? = settledOutcome, let error = error as? PromiseError, error.code == .abandoned {
            PromiseDiagnostics.reportAbandoned(error)
        }
    }
}

extension StateActor {
    /// This promise as the dependent whose cancellation made another lose interest (R16); `nil`
    /// while traces are off. Out of line: it is read on cancellation paths only, which it must
    /// not make too long to inline.
    @usableFromInline
    nonisolated var lostInterestCause: TraceCause? {
        tracesAreOn ? .lostInterest(traceSite) : nil
    }
}
