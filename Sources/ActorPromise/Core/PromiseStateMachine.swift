/// What can be done to the value half of a promise's state. Operations that arrive while another
/// thread holds the state actor's gate are parked and applied by that thread.
@usableFromInline
enum PromiseOp<Value: Sendable>: Sendable {
    case settle(Outcome<Value>)
    case register(observer: Observer<Value>?, child: (any PromiseNode)?, dependent: Bool)
    case cancel(reason: (any Error)?)
    case onCancel(@Sendable () -> Void)
    /// Follow `source` (adoption); `follower` is the identity of the promise that follows.
    case follow(PromiseCore<Value>, follower: ObjectIdentifier)
    /// A delivery of observers has run (R2); observers registered meanwhile are delivered now.
    case endDelivery
}

/// What must happen after a transition, outside the gate: the state machine decides, the state
/// actor carries it out. Observers are never called with the gate held.
///
/// Every operation builds, returns and destroys one of these, so it is kept to three references
/// and a few bytes: the compiler then passes it in registers and destroys it inline. With more
/// fields (it used to carry the outcome, the lazy body and the rare effects side by side) it is
/// copied and destroyed through its value witnesses, about 350 instructions per W1 link (see
/// `Benchmarks/README.md`). Observers read the outcome from the settled promise, so it is not
/// carried here; the rare effects share one box.
@usableFromInline
struct PromiseEffects<Value: Sendable>: Sendable {
    /// The observers to hand the outcome to (the promise is settled when this is not empty).
    @usableFromInline var observers = ObserverList<Value>()
    /// Lazy body, cancellation and adoption work: rare, so kept out of line.
    @usableFromInline var rare: RareEffects<Value>?
    /// What else to do, as bits (see the accessors below): one field, not four, keeps the
    /// struct small enough to travel in registers.
    @usableFromInline var marks: UInt8 = 0
    /// The state's snapshot bits after the transition: 1 settled, 2 cancelled, 8 cancelled while
    /// pending (final: such a promise never changes again).
    @usableFromInline var flags: UInt8 = 0

    /// Whether this transition settled the promise.
    @inlinable var settled: Bool { get { mark(1) } set { setMark(1, newValue) } }
    /// Whether the promise is done: its parent no longer needs to know it.
    @inlinable var reportDone: Bool { get { mark(2) } set { setMark(2, newValue) } }
    /// Whether the promise must register with its parent again.
    @inlinable var reattach: Bool { get { mark(4) } set { setMark(4, newValue) } }
    /// The observers are a delivery that must end with `.endDelivery` (R2).
    @inlinable var holdsDelivery: Bool { get { mark(8) } set { setMark(8, newValue) } }

    @inlinable func mark(_ bit: UInt8) -> Bool { marks & bit != 0 }
    @inlinable mutating func setMark(_ bit: UInt8, _ on: Bool) { if on { marks |= bit } else { marks &= ~bit } }

    @inlinable init() {}

    /// The body of a lazy promise, handed out with its first observer (R10).
    @inlinable
    var lazyBody: (@Sendable (Resolver<Value>) throws -> Void)? {
        get { rare?.lazyBody }
        set { rareBox().lazyBody = newValue }
    }

    @inlinable
    var cancellation: CancelEffects? {
        get { rare?.cancellation }
        set { rareBox().cancellation = newValue }
    }

    @inlinable
    var adoption: AdoptionEffects<Value>? {
        get { rare?.adoption }
        set { rareBox().adoption = newValue }
    }

    @inlinable
    mutating func rareBox() -> RareEffects<Value> {
        if let rare { return rare }
        let box = RareEffects<Value>()
        rare = box
        return box
    }
}

/// The effects that few transitions have, in one box (see ``PromiseEffects``).
@usableFromInline
final class RareEffects<Value: Sendable>: @unchecked Sendable {
    // Safety: written only by the transition that creates the box, under the state actor's gate,
    // and read after the gate is left by the thread that carries the effects out. One thread at a
    // time, so the runtime's exclusivity check (five per lazy `await`) is off.
    @usableFromInline @exclusivity(unchecked) var lazyBody: (@Sendable (Resolver<Value>) throws -> Void)?
    @usableFromInline @exclusivity(unchecked) var cancellation: CancelEffects?
    @usableFromInline @exclusivity(unchecked) var adoption: AdoptionEffects<Value>?

    @inlinable init() {}
}

/// What a cancellation decided (see ``PromiseStateMachine/cancel(reason:tree:)``).
@usableFromInline
final class CancelEffects: Sendable {
    /// The children to cancel in turn.
    @usableFromInline let children: [any PromiseNode]
    @usableFromInline let reason: (any Error)?
    /// The `onCancel` handler to run.
    @usableFromInline let handler: (@Sendable () -> Void)?
    /// Whether the parent and the adoptee lost this promise as a dependent (R7, B7).
    @usableFromInline let parentLostInterest: Bool
    @usableFromInline let adopteeLostInterest: (any PromiseNode)?

    @usableFromInline
    init(children: [any PromiseNode] = [], reason: (any Error)? = nil, handler: (@Sendable () -> Void)? = nil,
         parentLostInterest: Bool = false, adopteeLostInterest: (any PromiseNode)? = nil) {
        self.children = children
        self.reason = reason
        self.handler = handler
        self.parentLostInterest = parentLostInterest
        self.adopteeLostInterest = adopteeLostInterest
    }

    /// The same, with the children already taken care of (a cancel walk forwards to them itself).
    @usableFromInline
    func withoutChildren() -> CancelEffects {
        CancelEffects(reason: reason, handler: handler, parentLostInterest: parentLostInterest,
                      adopteeLostInterest: adopteeLostInterest)
    }
}

/// What adoption decided (see ``PromiseStateMachine/follow(_:follower:tree:)``).
@usableFromInline
final class AdoptionEffects<Value: Sendable>: Sendable {
    /// The source this promise must observe to settle itself.
    @usableFromInline let subscribeTo: PromiseCore<Value>?
    /// A promise returned to this one after it was cancelled: it gains and at once loses this
    /// promise as a dependent, so that its work stops unless somebody else waits for it (B7).
    @usableFromInline let unwanted: PromiseCore<Value>?

    @usableFromInline
    init(subscribeTo: PromiseCore<Value>? = nil, unwanted: PromiseCore<Value>? = nil) {
        self.subscribeTo = subscribeTo
        self.unwanted = unwanted
    }
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
        case .register(let observer, let child, let dependent): register(observer, child: child, dependent: dependent, tree: &tree)
        case .cancel(let reason): cancel(reason: reason, tree: &tree)
        case .onCancel(let handler): onCancel(handler)
        case .follow(let source, let follower): follow(source, follower: follower, tree: &tree)
        case .endDelivery: endDelivery()
        }
        effects.flags = (tree.isSettled ? 1 : 0) | (tree.isCancelled ? 2 : 0) | (cancelledWhilePending ? 8 : 0)
        return effects
    }

    @inlinable
    mutating func settle(_ outcome: Outcome<Value>, tree: inout TreeState) -> PromiseEffects<Value> {
        var effects = PromiseEffects<Value>()
        guard self.outcome == nil else { return effects }
        self.outcome = outcome
        if case .failure = outcome { tree.isRejected = true }
        effects.settled = true
        swap(&effects.observers, &observers)
        isDelivering = effects.observers.needsOrderedDelivery
        effects.holdsDelivery = isDelivering
        hook = .none
        effects.reportDone = tree.settle()
        return effects
    }

    @inlinable
    mutating func register(
        _ observer: consuming Observer<Value>?, child: consuming (any PromiseNode)?, dependent: Bool, tree: inout TreeState
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
        swap(&effects.observers, &observers)
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
