/// What can be done to the value half of a promise's state. Operations that arrive while another
/// thread holds the state actor's gate are parked and applied by that thread.
@usableFromInline
enum PromiseOp<Value: Sendable>: Sendable {
    case settle(Outcome<Value>)
    case register(observer: Observer<Value>?, child: (any PromiseNode)?, dependent: Bool)
    case cancel(reason: (any Error)?)
    case onCancel(@Sendable () -> Void)
}

/// What must happen after a transition, outside the gate: the state machine decides, the state
/// actor carries it out. Observers are never called with the gate held.
@usableFromInline
struct PromiseEffects<Value: Sendable>: Sendable {
    @usableFromInline var observers = ObserverList<Value>()
    @usableFromInline var outcome: Outcome<Value>?
    @usableFromInline var lazyBody: (@Sendable (Resolver<Value>) throws -> Void)?
    @usableFromInline var cancelHandler: (@Sendable () -> Void)?
    @usableFromInline var cancelChildren: [any PromiseNode] = []
    @usableFromInline var cancelReason: (any Error)?
    @usableFromInline var adopteeLostInterest: (any PromiseNode)?
    @usableFromInline var reportDone = false
    @usableFromInline var reattach = false
    @usableFromInline var parentLostInterest = false
    /// The state's snapshot bits after the transition: 1 settled, 2 cancelled.
    @usableFromInline var flags: UInt8 = 0

    @inlinable init() {}
}

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
    @usableFromInline
    enum Hook {
        case none
        case lazy(@Sendable (Resolver<Value>) throws -> Void)
        case onCancel(@Sendable () -> Void)
    }

    @usableFromInline var outcome: Outcome<Value>?
    @usableFromInline var observers = ObserverList<Value>()
    @usableFromInline var hook: Hook
    @usableFromInline var cancelledWhilePending = false

    @inlinable
    init(outcome: Outcome<Value>? = nil, hook: Hook = .none) {
        self.outcome = outcome
        self.hook = hook
    }

    @inlinable
    mutating func apply(_ op: PromiseOp<Value>, tree: inout TreeState) -> PromiseEffects<Value> {
        var effects = switch op {
        case .settle(let outcome): settle(outcome, tree: &tree)
        case .register(let observer, let child, let dependent): register(observer, child: child, dependent: dependent, tree: &tree)
        case .cancel(let reason): cancel(reason: reason, tree: &tree)
        case .onCancel(let handler): onCancel(handler)
        }
        effects.flags = (tree.isSettled ? 1 : 0) | (tree.isCancelled ? 2 : 0)
        return effects
    }

    @inlinable
    mutating func settle(_ outcome: Outcome<Value>, tree: inout TreeState) -> PromiseEffects<Value> {
        var effects = PromiseEffects<Value>()
        guard self.outcome == nil else { return effects }
        self.outcome = outcome
        effects.outcome = outcome
        swap(&effects.observers, &observers)
        hook = .none
        effects.reportDone = tree.settle()
        return effects
    }

    @inlinable
    mutating func register(
        _ observer: Observer<Value>?, child: (any PromiseNode)?, dependent: Bool, tree: inout TreeState
    ) -> PromiseEffects<Value> {
        var effects = PromiseEffects<Value>()
        effects.reattach = tree.add(child: child, dependent: dependent)
        guard let observer else { return effects }
        if let outcome {
            effects.observers.append(observer)
            effects.outcome = outcome
        } else {
            observers.append(observer)
            if case .lazy(let body) = hook {
                hook = .none
                effects.lazyBody = body
            }
        }
        return effects
    }

    @usableFromInline
    mutating func cancel(reason: (any Error)?, tree: inout TreeState) -> PromiseEffects<Value> {
        let adoptee = tree.adoptee
        guard let children = tree.cancel() else { return PromiseEffects() }
        guard outcome == nil else {
            var effects = PromiseEffects<Value>()
            effects.cancelChildren = children
            effects.cancelReason = reason
            return effects
        }
        let handler: (@Sendable () -> Void)? = if case .onCancel(let handler) = hook { handler } else { nil }
        var effects = settle(.failure(PromiseError.cancelled(reason: reason)), tree: &tree)
        cancelledWhilePending = true
        effects.cancelChildren = children
        effects.cancelReason = reason
        effects.cancelHandler = handler
        effects.parentLostInterest = true
        effects.adopteeLostInterest = adoptee
        return effects
    }

    @usableFromInline
    mutating func onCancel(_ handler: @escaping @Sendable () -> Void) -> PromiseEffects<Value> {
        var effects = PromiseEffects<Value>()
        if outcome == nil {
            hook = .onCancel(handler)
        } else if cancelledWhilePending {
            effects.cancelHandler = handler
        }
        return effects
    }
}
