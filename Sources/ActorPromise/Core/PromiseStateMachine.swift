/// The value half of a promise's state, as a pure value: no threads, no locks.
///
/// - pending → settled, once (R1); later settlements are ignored.
/// - observers registered while pending are handed out at settlement, in order (R2); observers
///   registered later get the outcome at once.
/// - `cancel` settles a pending promise with a cancellation error and forwards to the children
///   the tree half knows, also when it had already settled; a second `cancel` does nothing (R5).
/// - a lazy body is handed out with the first observer (R10); a cancellation handler with a
///   cancellation that finds the promise pending (R6).
///
/// Transitions also update the ``TreeState`` passed in. Tested directly in `StateMachineTests`.
@usableFromInline
struct PromiseStateMachine<Value: Sendable> {
    /// What the promise does at a moment of its life other than settling. At most one at a time:
    /// a lazy body exists only until the first observer, and a lazy promise's resolver is made
    /// for its body, after any `onCancel` could have been registered.
    @usableFromInline
    enum Hook {
        case none
        case lazy(@Sendable (Resolver<Value>) throws -> Void)
        case onCancel(@Sendable () -> Void)
    }

    // The fields are declared in this order so that the bytes after `hook`'s tag are not wasted
    // on padding (49 bytes for an `Int` promise).
    @usableFromInline var observers = ObserverList<Value>()
    @usableFromInline var hook: Hook
    @usableFromInline var cancelledWhilePending = false
    /// Whether a delivery of observers on non-inline contexts is under way (R2). Observers
    /// registered after settlement wait in `observers` until it ends.
    @usableFromInline var isDelivering = false
    /// Whether an observer waiting in `observers` for the outcome runs on a context other than
    /// `.inline`: settling then starts an ordered delivery (R2).
    @usableFromInline var hasOrderedObserver = false
    @usableFromInline var outcome: Outcome<Value>?

    @inlinable
    init(outcome: Outcome<Value>? = nil, hook: Hook = .none) {
        self.outcome = outcome
        self.hook = hook
    }

    @inlinable
    mutating func apply(_ op: consuming PromiseOp<Value>, tree: inout TreeState) -> PromiseEffects<Value> {
        var effects = switch consume op {
        case .settle(let outcome): settle(outcome, tree: &tree)
        case .observe(let observer): register(observer, child: nil, dependent: true, tree: &tree)
        case .derive(let child): register(child, child: child, dependent: true, tree: &tree)
        case .addDependent: register(nil, child: nil, dependent: true, tree: &tree)
        case .cancel(let reason): cancel(reason: reason, tree: &tree)
        case .onCancel(let handler): onCancel(handler)
        case .follow(let source, let follower): follow(source, follower: follower, tree: &tree)
        case .endDelivery: endDelivery()
        }
        effects.status = PromiseStatus.none
            .adding(.settled, if: tree.isSettled)
            .adding(.cancelled, if: tree.isCancelled)
            .adding(.cancelledWhilePending, if: cancelledWhilePending)
        return effects
    }

    @inlinable
    mutating func settle(_ outcome: Outcome<Value>, tree: inout TreeState) -> PromiseEffects<Value> {
        var effects = PromiseEffects<Value>()
        guard self.outcome == nil else { return effects }
        self.outcome = outcome
        if case .failure = outcome { tree.isRejected = true }
        effects.settled = true
        effects.observers = observers.take()
        isDelivering = hasOrderedObserver
        hasOrderedObserver = false
        effects.holdsDelivery = isDelivering
        hook = .none
        effects.reportDone = tree.settle()
        return effects
    }

    @inlinable
    mutating func register(
        _ observer: consuming (any OutcomeObserver)?, child: consuming (any PromiseNode)?, dependent: Bool, tree: inout TreeState
    ) -> PromiseEffects<Value> {
        var effects = PromiseEffects<Value>()
        effects.reattach = tree.add(child: child, dependent: dependent)
        guard let observer else { return effects }
        if outcome != nil {
            if observer.runsInline {
                effects.observers.append(observer)
            } else if isDelivering {
                // Behind the delivery under way: it hands this one out when it ends (R2).
                observers.append(observer)
            } else {
                isDelivering = true
                effects.holdsDelivery = true
                effects.observers.append(observer)
            }
        } else {
            if !observer.runsInline { hasOrderedObserver = true }
            observers.append(observer)
            if case .lazy(let body) = hook {
                hook = .none
                effects.lazyBody = body
            }
        }
        return effects
    }

    /// Adoption: this promise will settle as `source` does, by observing it as a dependent.
    ///
    /// The follower stays an ordinary promise in every respect while it follows: it keeps its
    /// place among its parent's children (so a cancel from above reaches it and, through it, the
    /// promises that follow it, R5), it counts as one dependent of `source` and decides its own
    /// interest (R7), and its outcome is `source`'s unless a cancel reached it first (R1).
    /// A promise cancelled before its handler returned `source` does not follow it; `source` is
    /// told that this promise does not want its value after all (B7).
    /// A source whose chain of adoptees leads back to this promise would make a cycle that never
    /// settles: this promise is rejected with ``PromiseError/Code/adoptionCycle`` instead, and the
    /// rest of the cycle, which follows it, with it (R13).
    @usableFromInline
    mutating func follow(
        _ source: PromiseCore<Value>, follower: ObjectIdentifier, tree: inout TreeState
    ) -> PromiseEffects<Value> {
        var effects = PromiseEffects<Value>()
        guard outcome == nil else {
            if cancelledWhilePending { effects.adoption = AdoptionEffects(unwanted: source) }
            return effects
        }
        if let length = tree.startFollowing(source, follower: follower) {
            return settle(.failure(PromiseError(.adoptionCycle, site: "a cycle of \(length) promises")), tree: &tree)
        }
        effects.adoption = AdoptionEffects(subscribeTo: source)
        return effects
    }

    /// Ends a delivery if no observer was registered meanwhile; returns whether it did.
    @inlinable
    mutating func endQuietDelivery() -> Bool {
        guard observers.isEmpty else { return false }
        isDelivering = false
        return true
    }

    /// A delivery ended: hand out the observers registered meanwhile, or stop delivering.
    @inlinable
    mutating func endDelivery() -> PromiseEffects<Value> {
        var effects = PromiseEffects<Value>()
        guard !endQuietDelivery(), outcome != nil else { return effects }
        effects.observers = observers.take()
        effects.holdsDelivery = true
        return effects
    }

    @usableFromInline
    mutating func cancel(reason: (any Error)?, tree: inout TreeState) -> PromiseEffects<Value> {
        let adoptee = tree.adoptee
        guard let children = tree.cancel() else { return PromiseEffects() }
        guard outcome == nil else {
            var effects = PromiseEffects<Value>()
            effects.cancellation = CancelEffects(children: children, reason: reason)
            return effects
        }
        let handler: (@Sendable () -> Void)? = if case .onCancel(let handler) = hook { handler } else { nil }
        var effects = settle(.failure(PromiseError.cancelled(reason: reason)), tree: &tree)
        cancelledWhilePending = true
        effects.cancellation = CancelEffects(
            children: children, reason: reason, handler: handler, parentLostInterest: true, adopteeLostInterest: adoptee)
        return effects
    }

    @usableFromInline
    mutating func onCancel(_ handler: @escaping @Sendable () -> Void) -> PromiseEffects<Value> {
        var effects = PromiseEffects<Value>()
        if outcome == nil {
            hook = .onCancel(handler)
        } else if cancelledWhilePending {
            effects.cancellation = CancelEffects(handler: handler)
        }
        return effects
    }
}
