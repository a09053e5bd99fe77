// The events a promise's state machine takes, and the actions its transitions leave to do.

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
    @inlinable var settled: Bool { get { work[.settled] } set { work[.settled] = newValue } }
    /// Whether the promise is done: its parent no longer needs to know it.
    @inlinable var reportDone: Bool { get { work[.reportDone] } set { work[.reportDone] = newValue } }
    /// Whether the promise must register with its parent again.
    @inlinable var reattach: Bool { get { work[.reattach] } set { work[.reattach] = newValue } }
    /// The observers are a delivery that must end with `.endDelivery` (R2).
    @inlinable var holdsDelivery: Bool { get { work[.holdsDelivery] } set { work[.holdsDelivery] = newValue } }
    /// Whether the lazy body is to run, handed out with the first observer (R10). It waits in the
    /// promise's hook store, where `carryOut` takes it: it travels in no box.
    @inlinable var runsLazyBody: Bool { get { work[.lazyBody] } set { work[.lazyBody] = newValue } }

    /// Whether the transition abandoned the promise, which `carryOut` reports (R8).
    @inlinable var reportsAbandonment: Bool { get { work[.abandoned] } set { work[.abandoned] = newValue } }

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
