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
