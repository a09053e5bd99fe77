/// What can be done to a promise's state. Each case is one transition of
/// ``PromiseStateMachine``; operations that arrive while another thread holds the state actor's
/// gate are parked as values of this type and applied by that thread.
enum PromiseOp<Value: Sendable>: Sendable {
    case settle(Outcome<Value>)
    case register(observer: Observer<Value>?, child: (any PromiseNode)?, dependent: Bool)
    case cancel(reason: (any Error)?)
    case childDone(ObjectIdentifier)
    case dependentCancelled
    case onCancel(@Sendable () -> Void)
    case adopting(any PromiseNode)
    case job(UnownedJob)
}

/// What must happen after a transition, outside the gate: the state machine decides, the state
/// actor carries it out (observers are never called with the gate held).
struct PromiseEffects<Value: Sendable>: Sendable {
    var observers = ObserverList<Value>()
    var outcome: Outcome<Value>?
    var lazyBody: (@Sendable (Resolver<Value>) throws -> Void)?
    var cancelHandler: (@Sendable () -> Void)?
    var cancelChildren: [any PromiseNode] = []
    var cancelReason: (any Error)?
    var reportDone = false
    var reattach = false
    var parentLostInterest = false
    var adopteeLostInterest: (any PromiseNode)?
    var cancelSelf = false
    var job: UnownedJob?
}

/// The state of one promise as a pure value: no threads, no locks. ``PromiseCore`` keeps one and
/// applies ``PromiseOp``s to it under its gate. Tested directly in `PromiseStateMachineTests`.
///
/// - pending → settled, once (R1); later settles are ignored.
/// - observers registered while pending are handed out at settlement, in order (R2);
///   observers registered later get the outcome at once.
/// - `cancel` settles a pending promise with a cancellation error and forwards to the children
///   it knows, also when it had already settled; a second `cancel` does nothing (R5).
/// - a node is *done* when it is settled and every child it holds is done; done nodes leave
///   their parent's child list so settled trees can be freed.
struct PromiseStateMachine<Value: Sendable> {
    enum Hook {
        case none
        case lazy(@Sendable (Resolver<Value>) throws -> Void)
        case onCancel(@Sendable () -> Void)
    }

    private(set) var outcome: Outcome<Value>?
    private(set) var isCancelled = false
    private(set) var isDone = false
    private var cancelledWhilePending = false
    private var observers = ObserverList<Value>()
    private var children = ChildList()
    private var hook: Hook
    private var adoptee: (any PromiseNode)?
    private var dependents: UInt32 = 0
    private var cancelledDependents: UInt32 = 0
    let tracksInterest: Bool

    init(outcome: Outcome<Value>? = nil, hook: Hook = .none, tracksInterest: Bool = false) {
        self.outcome = outcome
        self.hook = hook
        self.tracksInterest = tracksInterest
        self.isDone = outcome != nil
    }

    var isPending: Bool { outcome == nil }

    mutating func apply(_ op: PromiseOp<Value>) -> PromiseEffects<Value> {
        switch op {
        case .settle(let outcome): settle(outcome)
        case .register(let observer, let child, let dependent): register(observer, child: child, dependent: dependent)
        case .cancel(let reason): cancel(reason: reason)
        case .childDone(let id): childDone(id)
        case .dependentCancelled: dependentCancelled()
        case .onCancel(let handler): onCancel(handler)
        case .adopting(let node): adopting(node)
        case .job(let job): { var effects = PromiseEffects<Value>(); effects.job = job; return effects }()
        }
    }

    mutating func settle(_ outcome: Outcome<Value>) -> PromiseEffects<Value> {
        var effects = PromiseEffects<Value>()
        guard self.outcome == nil else { return effects }
        self.outcome = outcome
        effects.outcome = outcome
        swap(&effects.observers, &observers)
        hook = .none
        adoptee = nil
        if children.isEmpty {
            isDone = true
            effects.reportDone = true
        }
        return effects
    }

    mutating func register(_ observer: Observer<Value>?, child: (any PromiseNode)?, dependent: Bool) -> PromiseEffects<Value> {
        var effects = PromiseEffects<Value>()
        if let child {
            children.insert(child)
            if isDone {
                isDone = false
                effects.reattach = true
            }
        }
        if dependent { dependents += 1 }
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

    mutating func cancel(reason: (any Error)?) -> PromiseEffects<Value> {
        guard !isCancelled else { return PromiseEffects() }
        isCancelled = true
        let children = children.all
        let wasPending = outcome == nil
        let handler: (@Sendable () -> Void)? = if case .onCancel(let handler) = hook { handler } else { nil }
        let adoptee = adoptee
        var effects = wasPending ? settle(.failure(PromiseError.cancelled(reason: reason))) : PromiseEffects()
        effects.cancelChildren = children
        effects.cancelReason = reason
        if wasPending {
            cancelledWhilePending = true
            effects.cancelHandler = handler
            effects.parentLostInterest = true
            effects.adopteeLostInterest = adoptee
        }
        return effects
    }

    mutating func childDone(_ id: ObjectIdentifier) -> PromiseEffects<Value> {
        var effects = PromiseEffects<Value>()
        children.remove(id)
        if outcome != nil, children.isEmpty, !isDone {
            isDone = true
            effects.reportDone = true
        }
        return effects
    }

    mutating func dependentCancelled() -> PromiseEffects<Value> {
        var effects = PromiseEffects<Value>()
        cancelledDependents += 1
        if tracksInterest, outcome == nil, cancelledDependents >= dependents {
            effects.cancelSelf = true
        }
        return effects
    }

    mutating func onCancel(_ handler: @escaping @Sendable () -> Void) -> PromiseEffects<Value> {
        var effects = PromiseEffects<Value>()
        if outcome == nil {
            hook = .onCancel(handler)
        } else if cancelledWhilePending {
            effects.cancelHandler = handler
        }
        return effects
    }

    mutating func adopting(_ node: any PromiseNode) -> PromiseEffects<Value> {
        if outcome == nil { adoptee = node }
        return PromiseEffects()
    }
}
