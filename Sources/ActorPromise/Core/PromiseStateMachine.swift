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
    /// The hook (bits 0–1) and four flags in one byte (see ``flags`` accessors below);
    /// `cancelledWhilePending` and `cancelledAfterSource` sit at ``PromiseStatus``'s bits for them.
    @usableFromInline var flags: FlagByte

    @inlinable
    init(outcome: Outcome<Value>? = nil, hook: Hook = .none) {
        self.outcome = outcome
        self.flags = FlagByte(hook.rawValue)
    }

    @inlinable static var hookMask: UInt8 { 3 }
    @inlinable static var cancelledWhilePendingFlag: UInt8 { PromiseStatus.cancelledWhilePending.rawValue }
    @inlinable static var deliveringFlag: UInt8 { 8 }
    @inlinable static var orderedObserverFlag: UInt8 { 16 }
    @inlinable static var cancelledAfterSourceFlag: UInt8 { PromiseStatus.cancelledAfterSource.rawValue }
    @inlinable static var followingFlag: UInt8 { PromiseStatus.following.rawValue }
    /// The flags published in the status, at its bit positions.
    @inlinable static var publishedFlags: UInt8 { cancelledWhilePendingFlag | cancelledAfterSourceFlag | followingFlag }

    /// What the promise does at a moment of its life other than settling (see ``Hook``).
    @inlinable var hook: Hook {
        get { Hook(rawValue: flags.bits & Self.hookMask)! }
        set { flags.bits = flags.bits & ~Self.hookMask | newValue.rawValue }
    }

    /// Whether a cancellation found the promise pending (R6).
    @inlinable var cancelledWhilePending: Bool {
        get { flags.contains(Self.cancelledWhilePendingFlag) }
        set { flags.set(Self.cancelledWhilePendingFlag, to: newValue) }
    }

    /// Whether the promise, pending, follows another (see ``PromiseStatus/following``).
    @inlinable var isFollowing: Bool {
        get { flags.contains(Self.followingFlag) }
        set { flags.set(Self.followingFlag, to: newValue) }
    }

    /// Whether the cancellation that found the promise pending came after the promise it derives
    /// from had settled (see ``PromiseStatus/cancelledAfterSource``).
    @inlinable var cancelledAfterSource: Bool {
        get { flags.contains(Self.cancelledAfterSourceFlag) }
        set { flags.set(Self.cancelledAfterSourceFlag, to: newValue) }
    }

    /// Whether a delivery of observers on non-inline contexts is under way (R2). Observers
    /// registered after settlement wait in `observers` until it ends.
    @inlinable var isDelivering: Bool {
        get { flags.contains(Self.deliveringFlag) }
        set { flags.set(Self.deliveringFlag, to: newValue) }
    }

    /// Whether an observer waiting in `observers` for the outcome runs on a context other than
    /// `.inline`: settling then starts an ordered delivery (R2).
    @inlinable var hasOrderedObserver: Bool {
        get { flags.contains(Self.orderedObserverFlag) }
        set { flags.set(Self.orderedObserverFlag, to: newValue) }
    }

    @inlinable
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
            rawValue: tree.flags.bits & TreeState.Flag.published | flags.bits & Self.publishedFlags)
        return effects
    }

    @inlinable
    mutating func settle<Hooks: HookStore>(
        _ outcome: Outcome<Value>, tree: inout TreeState, hooks: inout Hooks
    ) -> PromiseEffects<Value> {
        var effects = PromiseEffects<Value>()
        guard self.outcome == nil else { return effects }
        self.outcome = outcome
        if case .failure = outcome { tree.isRejected = true }
        effects.settled = true
        effects.observers = observers.take()
        isDelivering = hasOrderedObserver
        hasOrderedObserver = false
        effects.holdsDelivery = isDelivering
        isFollowing = false
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
            if cancelledWhilePending { effects.adoption = AdoptionEffects(unwanted: source) }
            return effects
        }
        if let length = tree.startFollowing(source, follower: follower) {
            return settle(.failure(PromiseError(.adoptionCycle, site: "a cycle of \(length) promises")), tree: &tree, hooks: &hooks)
        }
        // The follower observes its source itself, inline (see `settleFromAdoptee`): it has no
        // handler left to run on a context, so it takes no part in ordered deliveries (R2).
        tree.runsInline = true
        isFollowing = true
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
        if tracesAreOn, tree.isRejected, let trace = hooks.traceFollowing(adoptee) { tree.recordTrace(trace) }
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
        cancelledWhilePending = true
        cancelledAfterSource = afterSource
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
        } else if cancelledWhilePending {
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

// MARK: - Events: what can be done to the value half

/// A cancel with its trace (see ``PromiseOp/tracedCancel(_:)``).
@usableFromInline
final class TracedCancel: Sendable {
    @usableFromInline let reason: (any Error)?
    @usableFromInline let afterSource: Bool
    @usableFromInline let trace: TraceNode

    init(reason: (any Error)?, afterSource: Bool, trace: TraceNode) {
        self.reason = reason
        self.afterSource = afterSource
        self.trace = trace
    }
}

/// What can be done to the value half of a promise's state. Operations that arrive while another
/// thread holds the state actor's gate are parked and applied by that thread.
@usableFromInline
enum PromiseOp<Value: Sendable>: Sendable {
    case settle(Outcome<Value>)
    /// Settle with this error, whose path is the trace (R16): sent instead of `settle` while
    /// failure traces are on.
    case reject(any Error, trace: TraceNode)
    /// The resolver is gone (R8): reject with this error, unless the promise is settled or follows
    /// another promise, and report it. The trace is there while failure traces are on.
    case abandon(any Error, trace: TraceNode? = nil)
    /// Register an observer that counts as a dependent (an awaiter, an adopting promise, …).
    case observe(any OutcomeObserver)
    /// Register a derived promise: it is an observer, a child and a dependent at once.
    case derive(any PromiseNode)
    /// Add a dependent with no observer.
    case addDependent
    /// Cancel (R5). `afterSource`: the promise this one derives from had settled before the
    /// cancel reached this one (see ``PromiseStatus/cancelledAfterSource``).
    case cancel(reason: (any Error)?, afterSource: Bool = false)
    /// `cancel`, with where the cancellation began and the promises it came through, while
    /// failure traces are on (R16). In a box: the operation stays as small as it was.
    case tracedCancel(TracedCancel)
    case onCancel(@Sendable () -> Void)
    /// Follow `source` (adoption); `follower` is the identity of the promise that follows.
    case follow(PromiseCore<Value>, follower: ObjectIdentifier)
    /// The promise this one follows has settled: take its outcome, unless a cancel came first.
    case adopteeSettled
    /// A delivery of observers has run (R2); observers registered meanwhile are delivered now.
    case endDelivery
}

// MARK: - Actions: what a transition leaves to do outside the gate

/// What must happen after a transition, outside the gate: the state machine decides, the state
/// actor carries it out. Observers are never called with the gate held.
///
/// Every operation builds, returns and destroys one of these, so it is kept to three references
/// and a few bytes: the compiler then passes it in registers and destroys it inline. With more
/// fields (the outcome, the lazy body and the rare effects side by side) it would be
/// copied and destroyed through its value witnesses, which costs more than the rest of a chain
/// link's transition. Observers read the outcome from the settled promise, so it is not
/// carried here; the rare effects share one box.
@usableFromInline
struct PromiseEffects<Value: Sendable> {
    /// The observers to hand the outcome to (the promise is settled when this is not empty).
    @usableFromInline var observers = ObserverList<Value>()
    /// Cancellation and adoption work: rare, so kept out of line.
    @usableFromInline var rare: RareEffects<Value>?
    /// What else to do (see the accessors below): one byte, not four `Bool`s, keeps the struct
    /// small enough to travel in registers.
    @usableFromInline var work = Work.none
    /// The promise's status after the transition, to publish for readers without the gate.
    @usableFromInline var status = PromiseStatus.none

    /// The follow-up work a transition asks for, carried out after the gate is left.
    @usableFromInline
    struct Work: OptionSet, Sendable {
        @usableFromInline let rawValue: UInt8
        @inlinable init(rawValue: UInt8) { self.rawValue = rawValue }

        /// Nothing. (An empty array literal would call an initializer the optimizer leaves
        /// outlined on this path.)
        @inlinable static var none: Work { Work(rawValue: 0) }
        /// This transition settled the promise.
        @inlinable static var settled: Work { Work(rawValue: 1) }
        /// The promise is done: its parent no longer needs to know it.
        @inlinable static var reportDone: Work { Work(rawValue: 2) }
        /// The promise must register with its parent again.
        @inlinable static var reattach: Work { Work(rawValue: 4) }
        /// The observers are a delivery that must end with `.endDelivery` (R2).
        @inlinable static var holdsDelivery: Work { Work(rawValue: 8) }
        /// The lazy body is to run: `carryOut` takes it from the promise's hook store (R10).
        @inlinable static var lazyBody: Work { Work(rawValue: 16) }
        /// The transition abandoned the promise: `carryOut` reports it (R8).
        @inlinable static var abandoned: Work { Work(rawValue: 32) }
    }

    /// Whether this transition settled the promise.
    @inlinable var settled: Bool { get { work.contains(.settled) } set { set(.settled, newValue) } }
    /// Whether the promise is done: its parent no longer needs to know it.
    @inlinable var reportDone: Bool { get { work.contains(.reportDone) } set { set(.reportDone, newValue) } }
    /// Whether the promise must register with its parent again.
    @inlinable var reattach: Bool { get { work.contains(.reattach) } set { set(.reattach, newValue) } }
    /// The observers are a delivery that must end with `.endDelivery` (R2).
    @inlinable var holdsDelivery: Bool { get { work.contains(.holdsDelivery) } set { set(.holdsDelivery, newValue) } }
    /// Whether the lazy body is to run, handed out with the first observer (R10). It waits in the
    /// promise's hook store, where `carryOut` takes it: it travels in no box.
    @inlinable var runsLazyBody: Bool { get { work.contains(.lazyBody) } set { set(.lazyBody, newValue) } }

    /// Whether the transition abandoned the promise, which `carryOut` reports (R8).
    @inlinable var reportsAbandonment: Bool { get { work.contains(.abandoned) } set { set(.abandoned, newValue) } }

    @inlinable mutating func set(_ item: Work, _ on: Bool) {
        work = Work(rawValue: on ? work.rawValue | item.rawValue : work.rawValue & ~item.rawValue)
    }

    @inlinable init() {}

    @inlinable
    var cancellation: CancelEffects? {
        get { rare?.cancellation }
        set { rare = RareEffects(cancellation: newValue, adoption: rare?.adoption) }
    }

    @inlinable
    var adoption: AdoptionEffects<Value>? {
        get { rare?.adoption }
        set { rare = RareEffects(cancellation: rare?.cancellation, adoption: newValue) }
    }
}

/// The effects that few transitions have, in one box (see ``PromiseEffects``). Immutable, so
/// that reading it costs no exclusivity check: a transition that sets a second kind of effect
/// makes a new box.
@usableFromInline
final class RareEffects<Value: Sendable> {
    @usableFromInline let cancellation: CancelEffects?
    @usableFromInline let adoption: AdoptionEffects<Value>?

    @inlinable
    init(cancellation: CancelEffects?, adoption: AdoptionEffects<Value>?) {
        self.cancellation = cancellation
        self.adoption = adoption
    }
}

/// What a cancellation decided (see ``PromiseStateMachine/cancel(reason:tree:hooks:)``).
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

// MARK: - The tree half of the state

/// The non-generic half of a promise's state: its place in the promise tree.
///
/// - Children are held while they, or their descendants, are pending, so that `cancel` reaches
///   them after this promise settled (R5). A node is *done* once it is settled and holds no
///   children; it then leaves its parent's list, so settled trees can be freed. The first child
///   is stored inline; the rest, if any, in the side object's ``ChildSet``, which is freed again
///   when it empties.
/// - Dependents (derived promises, adopters, awaiters) are counted for interest tracking (R7).
///
/// Pure value type: transitions return what must happen next; ``PromiseCore`` carries it out.
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
    /// Seven flags in one byte (see ``Flag``), at the bit positions ``PromiseStatus`` gives them,
    /// so that the status the state actor publishes is a mask of this byte and one bit of the
    /// state machine's. One byte instead of seven keeps the state actor within one malloc size
    /// class (memory per promise).
    @usableFromInline var flags: FlagByte

    /// The bits of ``flags``. The first five are ``PromiseStatus``'s (`StateMachineTests` checks
    /// that they match); 4 is the state machine's `cancelledWhilePending`.
    @usableFromInline
    enum Flag {
        @inlinable static var settled: UInt8 { 1 }
        @inlinable static var cancelled: UInt8 { 2 }
        @inlinable static var tracksInterest: UInt8 { 8 }
        @inlinable static var observesCancellation: UInt8 { 16 }
        @inlinable static var runsInline: UInt8 { 32 }
        @inlinable static var done: UInt8 { 64 }
        @inlinable static var rejected: UInt8 { 128 }
        /// The bits the state actor publishes in its status.
        @inlinable static var published: UInt8 { settled | cancelled | tracksInterest | observesCancellation | runsInline }
    }

    @inlinable
    init(isSettled: Bool, tracksInterest: Bool, observesCancellation: Bool = false, runsInline: Bool = false) {
        self.init(flags: Self.flags(
            isSettled: isSettled, tracksInterest: tracksInterest, observesCancellation: observesCancellation,
            runsInline: runsInline))
    }

    /// A tree state with no children and these flags (see ``flags(isSettled:tracksInterest:observesCancellation:runsInline:)``).
    @inlinable init(flags: UInt8) { self.flags = FlagByte(flags) }

    /// A tree state with these flags and a side object made already (see
    /// ``RareTreeState/keeping(site:)``).
    @inlinable init(flags: UInt8, rare: RareTreeState?) {
        self.flags = FlagByte(flags)
        self.rare = rare
    }

    /// The flags of a new promise.
    @inlinable
    static func flags(isSettled: Bool, tracksInterest: Bool, observesCancellation: Bool, runsInline: Bool) -> UInt8 {
        (isSettled ? Flag.settled | Flag.done : 0) | (tracksInterest ? Flag.tracksInterest : 0)
            | (observesCancellation ? Flag.observesCancellation : 0) | (runsInline ? Flag.runsInline : 0)
    }

    @inlinable var isSettled: Bool {
        get { flags.contains(Flag.settled) }
        set { flags.set(Flag.settled, to: newValue) }
    }

    /// Settled, and no child pending: reported to the parent, which then lets go of this node.
    @inlinable var isDone: Bool {
        get { flags.contains(Flag.done) }
        set { flags.set(Flag.done, to: newValue) }
    }

    @inlinable var isCancelled: Bool {
        get { flags.contains(Flag.cancelled) }
        set { flags.set(Flag.cancelled, to: newValue) }
    }

    /// Whether the outcome is a rejection: `deinit` looks for an unhandled one here (R14). Kept
    /// here, in non-generic state, because `deinit` runs unspecialized, where even an atomic load
    /// pays a run-time conformance look-up.
    @inlinable var isRejected: Bool {
        get { flags.contains(Flag.rejected) }
        set { flags.set(Flag.rejected, to: newValue) }
    }

    /// Whether the promise, as an observer, runs on `.inline`: set at creation for a derived
    /// promise whose handler runs there, and when the promise starts following another, which it
    /// observes inline.
    @inlinable var runsInline: Bool {
        get { flags.contains(Flag.runsInline) }
        set { flags.set(Flag.runsInline, to: newValue) }
    }

    /// Whether the promise cancels itself once every dependent was cancelled (R7). Fixed.
    @inlinable var tracksInterest: Bool { flags.contains(Flag.tracksInterest) }

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

    /// Records `trace` as the path of this promise's failure (R16), unless it has one. The caller
    /// holds the gate.
    @usableFromInline
    mutating func recordTrace(_ trace: TraceNode) {
        adoptionLock.withLockUnscheduled {
            let rare = rareHoldingLock()
            if rare.trace == nil { rare.trace = trace }
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
        if rare == nil { _ = adoptionLock.withLock { rareHoldingLock() } }
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
        guard isDone else { return false }
        isDone = false
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
        isSettled = true
        if adoptee != nil { clearAdoptee() }
        guard hasNoChildren, !isDone else { return false }
        isDone = true
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
                adoptionLock.withLock { rareHoldingLock() }.early.append(EarlyReport(child, isDone: false))
                return .nothing
            }
            return add(child: child, dependent: false) ? .reattachUpward : .nothing
        case .dependentCancelled:
            // Counted only while it can still matter: a settled promise stays settled, and one
            // that does not track interest never will (so a combinator that lets go of its
            // settled inputs makes no side object).
            guard tracksInterest, !isSettled else { return .nothing }
            let rare = adoptionLock.withLock { rareHoldingLock() }
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
            adoptionLock.withLock { rareHoldingLock() }.early.append(EarlyReport(child, isDone: true))
            return .nothing
        }
        guard isSettled, hasNoChildren, !isDone else { return .nothing }
        isDone = true
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
        guard !isCancelled else { return nil }
        isCancelled = true
        return allChildren
    }
}

/// The tree state that most promises never need, out of line so that every promise's state
/// actor is smaller: the children beyond the first, the promise this one follows, and the
/// count of cancelled dependents.
///
/// Safety (`@unchecked Sendable`): `moreChildren`, `early` and `cancelledDependents` are
/// touched only with the owning promise's gate held; `adoptee` is written with the gate and
/// ``adoptionLock`` held and read either with the gate or with the lock; the box itself is
/// published to its `TreeState` under that lock.
@usableFromInline
final class RareTreeState: @unchecked Sendable {
    // The gate and the lock already make every access exclusive (see above), so the runtime's
    // exclusivity check, which a fan-out would pay per handler, is off.
    @usableFromInline @exclusivity(unchecked) var moreChildren: ChildSet?
    @usableFromInline @exclusivity(unchecked) var adoptee: (any PromiseNode)?
    /// Children's reports that arrived before the report they sent first (see `TreeState.apply`):
    /// a "done" ahead of the re-attach before it, or a re-attach ahead of the "done" before it. The
    /// report still in flight keeps its child alive, so the identifier cannot be reused meanwhile.
    /// Touched only with the gate held.
    @usableFromInline @exclusivity(unchecked) var early: [EarlyReport] = []
    /// How many dependents were cancelled (R7). Touched only with the gate held.
    @usableFromInline @exclusivity(unchecked) var cancelledDependents: UInt32 = 0
    /// The path of the promise's failure (R16). Written once, with the gate and ``adoptionLock``
    /// held; read under that lock.
    @usableFromInline @exclusivity(unchecked) var trace: TraceNode?
    /// Where the promise was made, in release builds while traces are on (debug builds keep the
    /// site in the promise itself). Written before the promise is shared; never changed.
    @usableFromInline @exclusivity(unchecked) var site: PromiseSite?

    @usableFromInline init() {}

    /// A side object that keeps `site` for failure traces (R16): what a promise made in a release
    /// build while traces are on starts with. Out of line, and not a method of the promise, so
    /// that the promise's initializer hands its new object to no call.
    @usableFromInline
    static func keeping(site: PromiseSite) -> RareTreeState {
        let rare = RareTreeState()
        rare.site = site
        return rare
    }

    /// Adds a child beyond the first.
    @usableFromInline
    func insertMoreChild(_ child: consuming any PromiseNode) {
        if moreChildren == nil { moreChildren = ChildSet() }
        moreChildren!.insert(child)
    }

    /// Removes `report` from the early reports; returns whether it was there.
    func takeEarly(_ report: EarlyReport) -> Bool {
        guard let index = early.firstIndex(of: report) else { return false }
        early.remove(at: index)
        return true
    }

    /// Removes a child beyond the first; returns whether it was there. The set goes once empty.
    func removeMoreChild(_ child: borrowing any PromiseNode) -> Bool {
        guard moreChildren != nil else { return false }
        let found = moreChildren!.remove(child)
        if moreChildren!.count == 0 { moreChildren = nil }
        return found
    }
}

/// A side object on its way from an operator's capture to the promise the operator makes
/// (release builds with failure traces on, R16: it keeps the site), counted once on the way: the
/// capture retains it for the promise, whose initializer takes that reference over. A value of no
/// reference-counted type, so that the common case — nothing on its way — costs no retain or
/// release of an empty reference at every link.
@usableFromInline
struct RareHandoff: Sendable {
    // Safety: made only by `of(_:)` and `keeping(_:)`, which retain the object once; `take()` is called once, by
    // the initializer the handoff is passed to, which takes that reference over.
    @usableFromInline let object: Unmanaged<RareTreeState>?

    @inlinable init(object: Unmanaged<RareTreeState>?) { self.object = object }

    /// Nothing on its way.
    @inlinable static var none: RareHandoff { RareHandoff(object: nil) }

    /// The side object `captured` brought, if any (see ``CapturedTaskLocals/rareForTraces``).
    @inlinable
    static func of(_ captured: CapturedTaskLocals?) -> RareHandoff {
        guard let rare = captured?.rareForTraces else { return .none }
        return RareHandoff(object: .passRetained(rare))
    }

    /// A side object keeping `site`, while failure traces are on in a release build (R16): for
    /// the promises no operator's capture brings one to (a resolver's, a combinator's).
    @inlinable
    static func keeping(_ site: PromiseSite) -> RareHandoff {
        #if DEBUG
        return .none
        #else
        guard tracesAreOn else { return .none }
        return RareHandoff(object: .passRetained(RareTreeState.keeping(site: site)))
        #endif
    }

    /// The side object, with the reference the handoff held.
    @inlinable func take() -> RareTreeState? { object?.takeRetainedValue() }
}

/// Guards every write of a promise's adoptee, so that a cycle check can walk the chain of
/// adoptees of other promises without their gates (R13). Taken only when a promise starts or
/// stops following another, never on the plain `then` path, and never while waiting for a gate.
@usableFromInline
let adoptionLock = ConditionLock()

/// A child's report that reached its parent before the report the child had sent first.
@usableFromInline
struct EarlyReport: Equatable, Sendable {
    let child: ObjectIdentifier
    /// A "done" (ahead of a re-attach), or a re-attach (ahead of a "done").
    let isDone: Bool

    init(_ child: borrowing any PromiseNode, isDone: Bool) {
        self.child = ObjectIdentifier(child)
        self.isDone = isDone
    }
}

// MARK: - What other threads may read: the published status, and the flags it is cut from


/// What any thread may learn about a promise without its gate: the snapshot a transition
/// publishes in `PromiseCore.status` (release), read with an acquiring load.
@usableFromInline
struct PromiseStatus: OptionSet, AtomicRepresentable, Sendable {
    @usableFromInline let rawValue: UInt8

    @inlinable init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Pending. (An empty array literal would call an initializer the optimizer leaves outlined.)
    @inlinable static var none: PromiseStatus { PromiseStatus(rawValue: 0) }
    /// Fulfilled or rejected (cancellation included).
    @inlinable static var settled: PromiseStatus { PromiseStatus(rawValue: 1) }
    /// Rejected by cancellation.
    @inlinable static var cancelled: PromiseStatus { PromiseStatus(rawValue: 2) }
    /// Cancelled while it was pending. Final: such a promise never changes again, so a thread
    /// may act on it without the gate.
    @inlinable static var cancelledWhilePending: PromiseStatus { PromiseStatus(rawValue: 4) }
    /// Cancelled while pending, after the promise it derives from had settled: its handler, if it
    /// observes outcomes, reports that settled outcome, not the later cancel (R1, B5). Final.
    @inlinable static var cancelledAfterSource: PromiseStatus { PromiseStatus(rawValue: 64) }
    /// Pending and following another promise (adoption): a hint for collapsing chains of
    /// adoptions, which check the adoptee itself under ``adoptionLock``.
    @inlinable static var following: PromiseStatus { PromiseStatus(rawValue: 128) }
    // Set when the promise is made, and published here so that the state actor needs no field
    // of its own for them: they are read without the gate.
    @inlinable static var tracksInterest: PromiseStatus { PromiseStatus(rawValue: 8) }
    @inlinable static var observesCancellation: PromiseStatus { PromiseStatus(rawValue: 16) }
    /// Also set when the promise starts following another, which it observes inline; read by
    /// that promise when this one registers with it, after the follow is applied.
    @inlinable static var runsInline: PromiseStatus { PromiseStatus(rawValue: 32) }

    /// This status, with `other` added when `condition` holds.
    @inlinable func adding(_ other: PromiseStatus, if condition: Bool) -> PromiseStatus {
        condition ? PromiseStatus(rawValue: rawValue | other.rawValue) : self
    }
}

/// A few `Bool`s of a promise's state packed into one byte, each flag a bit mask: the tree state
/// and the state machine each keep one, so that the state actor stays within one malloc size class.
@usableFromInline
struct FlagByte: Sendable {
    @usableFromInline var bits: UInt8

    @inlinable init(_ bits: UInt8) { self.bits = bits }

    /// Whether any bit of `flag` is set.
    @inlinable func contains(_ flag: UInt8) -> Bool { bits & flag != 0 }

    /// Sets or clears the bits of `flag`.
    @inlinable
    mutating func set(_ flag: UInt8, to on: Bool) {
        bits = on ? bits | flag : bits & ~flag
    }
}
