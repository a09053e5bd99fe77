import Synchronization

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
    /// for its body, after any `onCancel` could have been registered. The closure itself waits in
    /// a ``HookStore`` (the state actor's link slot, which only a derived promise uses for a
    /// handler, and a derived promise has no hook), so that it takes no room here.
    @usableFromInline
    enum Hook: UInt8 {
        case none
        /// The store holds the lazy body (`LazyBody`).
        case lazy
        /// The store holds the cancellation handler (`CancelHandler`).
        case onCancel
    }

    // The flags' byte comes last, after the outcome, whose tag it follows without padding (26
    // bytes for an `Int` promise).
    @usableFromInline var observers = ObserverList<Value>()
    @usableFromInline var outcome: Outcome<Value>?
    /// The hook (bits 0–1) and five flags in one byte (see ``MachineFlags``);
    /// `flags[.cancelledWhilePending]`, `flags[.cancelledAfterSource]` and `following` sit at ``PromiseStatus``'s
    /// bits for them.
    @usableFromInline var flags: MachineFlags

    @inlinable
    init(outcome: Outcome<Value>? = nil, hook: Hook = .none) {
        self.outcome = outcome
        self.flags = MachineFlags(rawValue: hook.rawValue)
    }

    /// What the promise does at a moment of its life other than settling (see ``Hook``).
    @inlinable var hook: Hook {
        get { Hook(rawValue: flags.rawValue & MachineFlags.hookBits)! }
        set { flags.rawValue = flags.rawValue & ~MachineFlags.hookBits | newValue.rawValue }
    }

    /// Always inlined: every entry point passes an operation it names (`perform(.observe(…))`),
    /// so inlined the switch folds to that one case; called, it would run the whole switch and
    /// copy the operation (see Benchmarks/README.md, *Why the core looks like this*).
    @inlinable @inline(__always)
    mutating func apply<Hooks: HookStore>(
        _ op: consuming PromiseOp<Value>, tree: inout TreeState, hooks: inout Hooks
    ) -> PromiseEffects<Value> {
        var effects = switch consume op {
        case .settle(let outcome): settle(outcome, tree: &tree, hooks: &hooks)
        case .reject(let error, let trace): reject(error, trace: trace, tree: &tree, hooks: &hooks)
        case .abandon(let error, let trace): abandon(error, trace: trace, tree: &tree, hooks: &hooks)
        case .observe(let observer): register(observer, child: nil, dependent: true, tree: &tree)
        case .derive(let child): register(child, child: child, dependent: true, tree: &tree)
        case .addDependent: register(nil, child: nil, dependent: true, tree: &tree)
        case .cancel(let reason, let afterSource): cancel(reason: reason, afterSource: afterSource, tree: &tree, hooks: &hooks)
        case .tracedCancel(let request): cancel(request, tree: &tree, hooks: &hooks)
        case .onCancel(let handler): onCancel(handler, hooks: &hooks)
        case .follow(let source, let follower): follow(source, follower: follower, tree: &tree, hooks: &hooks)
        case .adopteeSettled: settleFromAdoptee(tree: &tree, hooks: &hooks)
        case .endDelivery: endDelivery()
        }
        // The tree's flags and this one sit at the status's bit positions.
        effects.status = PromiseStatus(
            rawValue: tree.flags.rawValue & TreeFlags.published.rawValue | flags.rawValue & MachineFlags.published.rawValue)
        return effects
    }

    @inlinable
    mutating func settle<Hooks: HookStore>(
        _ outcome: Outcome<Value>, tree: inout TreeState, hooks: inout Hooks
    ) -> PromiseEffects<Value> {
        var effects = PromiseEffects<Value>()
        guard self.outcome == nil else { return effects }
        self.outcome = outcome
        if case .failure = outcome { tree.flags[.rejected] = true }
        effects.settled = true
        effects.observers = observers.take()
        flags[.delivering] = flags[.orderedObserver]
        flags[.orderedObserver] = false
        effects.holdsDelivery = flags[.delivering]
        flags[.following] = false
        if hook != .none {
            hook = .none
            hooks.drop()
        }
        effects.reportDone = tree.settle()
        return effects
    }

    /// Rejects the promise with `error`, whose path is `trace` (R16); ignored if settled (R1).
    /// Specialized where it is used, not inlined there: traces are on.
    @inlinable @inline(never)
    mutating func reject<Hooks: HookStore>(
        _ error: any Error, trace: TraceNode, tree: inout TreeState, hooks: inout Hooks
    ) -> PromiseEffects<Value> {
        let effects = settle(.failure(error), tree: &tree, hooks: &hooks)
        if effects.settled { tree.recordTrace(trace) }
        return effects
    }

    /// The resolver was released (R8). A promise it settled, or made follow another promise, is
    /// not abandoned: those operations reach the gate before this one, even when they were parked.
    /// Otherwise nothing can settle the promise any more: it is rejected with `error`, and the
    /// effects ask for the abandonment report.
    @usableFromInline
    mutating func abandon<Hooks: HookStore>(
        _ error: any Error, trace: TraceNode?, tree: inout TreeState, hooks: inout Hooks
    ) -> PromiseEffects<Value> {
        guard outcome == nil, tree.adoptee == nil else { return PromiseEffects() }
        var effects = settle(.failure(error), tree: &tree, hooks: &hooks)
        if let trace { tree.recordTrace(trace) }
        effects.reportsAbandonment = true
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
            } else if flags[.delivering] {
                // Behind the delivery under way: it hands this one out when it ends (R2).
                observers.append(observer)
            } else {
                flags[.delivering] = true
                effects.holdsDelivery = true
                effects.observers.append(observer)
            }
        } else {
            if !observer.runsInline { flags[.orderedObserver] = true }
            observers.append(observer)
            if hook == .lazy {
                // The body stays in the store for `carryOut` to take: nothing else reaches the
                // store until the body has made the promise's resolver (see `Hook`).
                hook = .none
                effects.runsLazyBody = true
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
    @inlinable
    mutating func follow<Hooks: HookStore>(
        _ source: PromiseCore<Value>, follower: ObjectIdentifier, tree: inout TreeState, hooks: inout Hooks
    ) -> PromiseEffects<Value> {
        var effects = PromiseEffects<Value>()
        guard outcome == nil else {
            if flags[.cancelledWhilePending] { effects.adoption = AdoptionEffects(unwanted: source) }
            return effects
        }
        if let length = tree.startFollowing(source, follower: follower) {
            return settle(.failure(PromiseError(.adoptionCycle, site: "a cycle of \(length) promises")), tree: &tree, hooks: &hooks)
        }
        // The follower observes its source itself, inline (see `settleFromAdoptee`): it has no
        // handler left to run on a context, so it takes no part in ordered deliveries (R2).
        tree.flags[.runsInline] = true
        flags[.following] = true
        effects.adoption = AdoptionEffects(subscribeTo: source)
        return effects
    }

    /// The source this promise follows has settled and delivered to it: this promise settles with
    /// the source's outcome, read through `hooks`; a promise no longer following (a cancel or a
    /// cycle settled it first) ignores the delivery.
    @inlinable
    mutating func settleFromAdoptee<Hooks: HookStore>(tree: inout TreeState, hooks: inout Hooks) -> PromiseEffects<Value> {
        guard outcome == nil, let adoptee = tree.adoptee, let outcome = hooks.outcome(of: adoptee, as: Value.self) else {
            return PromiseEffects()
        }
        let effects = settle(outcome, tree: &tree, hooks: &hooks)
        if tracesAreOn, tree.flags[.rejected], let trace = hooks.traceFollowing(adoptee) { tree.recordTrace(trace) }
        return effects
    }

    /// Ends a delivery if no observer was registered meanwhile; returns whether it did.
    @inlinable
    mutating func endQuietDelivery() -> Bool {
        guard observers.isEmpty else { return false }
        flags[.delivering] = false
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

    /// Cancellation (R5): settles a pending promise with the cancellation error and runs its
    /// `onCancel` handler; forwards to the children either way. `afterSource` says that the
    /// promise this one derives from had already settled (a handler that observes outcomes then
    /// reports that outcome, R1).
    @usableFromInline
    mutating func cancel<Hooks: HookStore>(
        reason: (any Error)?, afterSource: Bool = false, trace: TraceNode? = nil, tree: inout TreeState, hooks: inout Hooks
    ) -> PromiseEffects<Value> {
        let adoptee = tree.adoptee
        guard let children = tree.cancel() else { return PromiseEffects() }
        // A promise that settled before keeps its failure's trace; one that was fulfilled records
        // the cancellation's, which the children it forwards to carry on.
        if let trace { tree.recordTrace(trace) }
        guard outcome == nil else {
            var effects = PromiseEffects<Value>()
            effects.cancellation = CancelEffects(children: children, reason: reason)
            return effects
        }
        let handler: (@Sendable () -> Void)? = if hook == .onCancel { hooks.take(as: CancelHandler.self)?.run } else { nil }
        var effects = settle(.failure(PromiseError.cancelled(reason: reason)), tree: &tree, hooks: &hooks)
        flags[.cancelledWhilePending] = true
        flags[.cancelledAfterSource] = afterSource
        effects.cancellation = CancelEffects(
            children: children, reason: reason, handler: handler, parentLostInterest: true, adopteeLostInterest: adoptee)
        return effects
    }

    /// ``cancel(reason:afterSource:trace:tree:hooks:)`` with a trace (R16). Specialized where it
    /// is used, not inlined there: traces are on.
    @inlinable @inline(never)
    mutating func cancel<Hooks: HookStore>(
        _ request: TracedCancel, tree: inout TreeState, hooks: inout Hooks
    ) -> PromiseEffects<Value> {
        cancel(reason: request.reason, afterSource: request.afterSource, trace: request.trace, tree: &tree, hooks: &hooks)
    }

    @usableFromInline
    mutating func onCancel<Hooks: HookStore>(_ handler: @escaping @Sendable () -> Void, hooks: inout Hooks) -> PromiseEffects<Value> {
        var effects = PromiseEffects<Value>()
        if outcome == nil {
            assert(hook != .lazy, "a lazy promise's resolver is made after its body left the store")
            hook = .onCancel
            hooks.put(ErasedClosure(CancelHandler(handler)))
        } else if flags[.cancelledWhilePending] {
            effects.cancellation = CancelEffects(handler: handler)
        }
        return effects
    }
}

/// What a transition needs from outside the machine's own state: the closure its
/// ``PromiseStateMachine/Hook`` names, and the outcome of the promise it follows. The state machine
/// reaches the closure only when its `hook` says one is there, so a store that is another object's
/// field is touched under the promise's gate only by the operations that need it; tests answer
/// both from a store of their own.
@usableFromInline
protocol HookStore {
    /// Stores `closure`, releasing any closure stored before.
    mutating func put(_ closure: consuming ErasedClosure)
    /// Moves the stored closure out, as the `Body` it was stored as.
    mutating func take<Body>(as: Body.Type) -> Body?
    /// Releases the stored closure.
    mutating func drop()
    /// The outcome of `adoptee`, the promise this one follows, if it has settled.
    func outcome<Value: Sendable>(of adoptee: any PromiseNode, as _: Value.Type) -> Outcome<Value>?
    /// The failure trace of `adoptee` carried on through this promise, while traces are on (R16).
    func traceFollowing(_ adoptee: any PromiseNode) -> TraceNode?
}

extension HookStore {
    /// No trace: a store that is not a promise's knows no sites.
    @usableFromInline
    func traceFollowing(_ adoptee: any PromiseNode) -> TraceNode? { nil }
}

/// A cancellation handler, as stored in a ``HookStore`` (see ``ErasedClosure``).
@usableFromInline struct CancelHandler {
    @usableFromInline let run: @Sendable () -> Void
    @inlinable init(_ run: @escaping @Sendable () -> Void) { self.run = run }
}
