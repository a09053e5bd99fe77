// The parts of a promise's tree state that most promises never need, and the lock that guards
// who follows whom.

/// The tree state that most promises never need, out of line so that every promise's state
/// actor is smaller: the children beyond the first, the promise this one follows, and the
/// count of cancelled dependents. A promise whose failure has a trace, or that keeps its site for
/// one, has a ``TracedRareTreeState`` instead, which adds them: a promise with traces off never
/// pays for their room (a fan-out's root keeps its children here: the two would move its box to a
/// larger size class, 48 bytes more).
///
/// Safety (`@unchecked Sendable`): `moreChildren`, `early` and `cancelledDependents` are
/// touched only with the owning promise's gate held; `adoptee` is written with the gate and
/// ``adoptionLock`` held and read either with the gate or with the lock; the box itself is
/// published to its `TreeState` under that lock, and so is the traced box that replaces it.
@usableFromInline
class RareTreeState: @unchecked Sendable {
    // The gate and the lock already make every access exclusive (see above), so the runtime's
    // exclusivity check, which a fan-out would pay per handler, is off.
    @usableFromInline @exclusivity(unchecked) final var moreChildren: ChildSet?
    @usableFromInline @exclusivity(unchecked) final var adoptee: (any PromiseNode)?
    /// Children's reports that arrived before the report they sent first (see `TreeState.apply`):
    /// a "done" ahead of the re-attach before it, or a re-attach ahead of the "done" before it. The
    /// report still in flight keeps its child alive, so the identifier cannot be reused meanwhile.
    /// Touched only with the gate held.
    @usableFromInline @exclusivity(unchecked) final var early: [EarlyReport] = []
    /// How many dependents were cancelled (R7). Touched only with the gate held.
    @usableFromInline @exclusivity(unchecked) final var cancelledDependents: UInt32 = 0
    /// Whether this box is a ``TracedRareTreeState``: tested instead of a dynamic cast, which
    /// would retain the box it answers with.
    @usableFromInline final let isTraced: Bool

    @usableFromInline init() { isTraced = false }

    /// A box with `other`'s parts, which it replaces (see ``TreeState/recordTrace(_:)``). For
    /// ``TracedRareTreeState`` alone, like ``init(isTraced:)``: private to this file, so that only
    /// the subclass can set `isTraced`.
    fileprivate init(takingPartsOf other: RareTreeState, isTraced: Bool) {
        self.isTraced = isTraced
        moreChildren = other.moreChildren.take()
        adoptee = other.adoptee.take()
        early = other.early
        cancelledDependents = other.cancelledDependents
    }

    /// An empty box, traced or not (see ``init(takingPartsOf:isTraced:)``).
    fileprivate init(isTraced: Bool) { self.isTraced = isTraced }

    /// This box as the traced box it is, if it is one. Safety of the downcast: `isTraced` is
    /// set only through this file's private initializers, which ``TracedRareTreeState``'s alone
    /// call.
    @inlinable @inline(__always)
    final var traced: TracedRareTreeState? {
        isTraced ? unsafeDowncast(self, to: TracedRareTreeState.self) : nil
    }

    /// The path of the promise's failure (R16), if this box has room for one.
    @inlinable final var trace: TraceNode? { traced?.storedTrace }

    /// Where the promise was made, if this box keeps it (R16).
    @inlinable final var site: PromiseSite? { traced?.storedSite }

    /// A side object that keeps `site` for failure traces (R16): what a promise made in a release
    /// build while traces are on starts with. Out of line, and not a method of the promise, so
    /// that the promise's initializer hands its new object to no call.
    @usableFromInline
    static func keeping(site: PromiseSite) -> RareTreeState {
        let rare = TracedRareTreeState()
        rare.storedSite = site
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

/// ``RareTreeState`` with room for failure traces (R16). Safety: as its superclass's; `trace` is
/// written once, with the gate and ``adoptionLock`` held, and read under that lock; `site` is
/// written before the promise is shared and never changed.
@usableFromInline
final class TracedRareTreeState: RareTreeState, @unchecked Sendable {
    /// The path of the promise's failure.
    @usableFromInline @exclusivity(unchecked) var storedTrace: TraceNode?
    /// Where the promise was made, in release builds while traces are on (debug builds keep the
    /// site in the promise itself).
    @usableFromInline @exclusivity(unchecked) var storedSite: PromiseSite?

    @usableFromInline override init() { super.init(isTraced: true) }

    /// A traced box with `other`'s parts, which it replaces.
    init(takingPartsOf other: RareTreeState) { super.init(takingPartsOf: other, isTraced: true) }
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

    /// A side object keeping `site`, while failure traces or pending tracking are on in a release
    /// build (R16, ``PromiseDiagnostics/tracksPending``): for the promises no operator's capture
    /// brings one to (a resolver's, a combinator's).
    @inlinable
    static func keeping(_ site: PromiseSite) -> RareHandoff {
        #if DEBUG
        return .none
        #else
        guard tracesAreOn || PendingRegistry.isOn else { return .none }
        return RareHandoff(object: .passRetained(RareTreeState.keeping(site: site)))
        #endif
    }

    /// The side object, with the reference the handoff held.
    @inlinable func take() -> RareTreeState? { object?.takeRetainedValue() }
}

/// Guards every write of a promise's adoptee, so that a cycle check can walk the chain of
/// adoptees of other promises without their gates (R13). Taken when a promise starts or stops
/// following another, records a trace, or stores its new side object (a second child, an early
/// report: one store, once per promise on a fan-out), and never while waiting for a gate.
///
/// Readers on other threads (cycle checks, traces, the pending snapshot) reach a promise's side
/// object through its `rare` reference, which a traced box may replace and so free: the lock keeps
/// the box they read alive, which publishing the reference atomically alone would not.
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
