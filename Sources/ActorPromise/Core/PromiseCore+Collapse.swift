import Synchronization

/// Whether chains of adoptions collapse (R3: a recursive loop runs in constant memory). On
/// unless a test switches it off, to compare the two.
@usableFromInline
let collapsesAdoptionChains = Atomic<Bool>(true)

/// Collapsing a chain of adoptions: the levels of a recursive loop that nobody can reach any more.
///
/// A recursive loop — `poll(i) = step(i).flatMap { done in done ? Promise(value: i) : poll(i + 1) }`
/// — builds one level per iteration: the step `S`, settled, and the promise `F` derived from it,
/// which follows the next level's promise `K`; the level before follows `F` in turn (call it
/// `R`). Each level waits for the next until the loop ends, so without collapsing every level
/// lives as long as the loop. Once `K` starts following the level after it, the level `(S, F)`
/// behind it has done all it will do: its handler has run, and it only passes `K`'s outcome on
/// to `R`. If nothing but the chain itself can reach `F` or `S` — no user holds them, no thread
/// is working on them, no operation is on its way to them — `R` can follow `K` directly and the
/// level can go, and no rule can tell: what `F` would have done (pass the outcome on, cancel
/// itself when `R` stops waiting, R5 and R7) `R` and `K` do directly, with the same outcomes.
///
/// "Nothing else can reach them" is answered by reference counts, with the gates of `K`, `F`, `R`
/// and `S` held and the adoption lock taken: with `F` moved out of `R`'s adoptee, `K`'s observers
/// and `S`'s children, the one remaining reference to `F` must be the only one, and `F`'s
/// reference to `S` the only one to `S`. Every operation on its way to a promise — a parked operation, a cancel walk's
/// work list, an effect being carried out, a cycle check's walk — holds the promise strongly, and
/// no user can hold a promise's state weakly, so the counts include them all. Anything else —
/// a promise referenced elsewhere, a gate found busy, a state not as described — and the level
/// stays, with everything put back as it was. Nothing waits: the gates are only tried.
extension StateActor where Machine == PromiseStateMachine<Value> {
    /// Lets the promises that follow this one skip the levels behind it that nobody else can
    /// reach (see above). Called when this promise has just started following another, so that
    /// the level behind it has finished its own run. Tries up to two levels: a level that could
    /// not go last time gets another chance.
    ///
    /// Specialized for `Value` where it is called (a generic body would look up the types'
    /// metadata at every step), and not inlined there: it is rare next to the paths around it.
    @inlinable @inline(never)
    nonisolated func collapseFollowers() {
        guard collapsesAdoptionChains.load(ordering: .relaxed) else { return }
        for _ in 0..<2 {
            // The level that goes is freed here, after every gate was left (its own among them).
            var gone: AnyObject?
            let collapsed = collapseOneFollower(&gone)
            withExtendedLifetime(gone) {}
            gone = nil
            guard collapsed else { return }
        }
    }

    /// Makes the promise that follows this one's follower follow this one instead, and hands the
    /// follower, which nothing else reaches any more, to `gone`. Returns whether it did.
    ///
    /// The follower is reached through an unretained reference only, so that no reference of this
    /// function's own counts against it. Safety: it stays alive throughout, held by the chain —
    /// the adoptee of its follower and an observer of this promise, which change only under the
    /// gates held here — until `relink` moves the last of those references into `gone`.
    @inlinable
    nonisolated func collapseOneFollower(_ gone: inout AnyObject?) -> Bool {
        guard gate.tryEnter() else { return false }
        let outerK = recordIsolation()
        defer { gate.leave(restoring: outerK) }
        guard machine.outcome == nil, let found = followerHoldingGate() else { return false }
        return found._withUnsafeGuaranteedRef { follower in
            guard follower.gate.tryEnter() else { return false }
            let outerF = follower.recordIsolation()
            defer { follower.gate.leave(restoring: outerF) }
            guard let next = follower.skippableFollower(following: self) else { return false }
            guard next.gate.tryEnter() else { return false }
            let outerR = next.recordIsolation()
            defer { next.gate.leave(restoring: outerR) }
            guard next.machine.outcome == nil, next.tree.adoptee.map({ $0 === follower }) ?? false else { return false }
            // The follower's parent (the loop's step), entered through calls that hold it only
            // while they run, so that it can be counted in between.
            guard follower.parent == nil else {
                guard let entry = follower.parent!.enterGateIfFree() else { return false }
                defer { follower.parent!.leaveGate(entry) }
                return relink(follower, of: next, to: self, into: &gone)
            }
            return relink(follower, of: next, to: self, into: &gone)
        }
    }

    /// This promise's follower — an observer that is a promise of this type and follows this
    /// one — unretained. With the gate held.
    @inlinable
    nonisolated func followerHoldingGate() -> Unmanaged<PromiseCore<Value>>? {
        var found: Unmanaged<PromiseCore<Value>>?
        machine.observers.forEach { observer in
            guard found == nil, observer.isFollowingPromise, let node = observer.promiseNode else { return }
            adoptionLock.lock()
            let follows = node.adopteeUnderAdoptionLock.map { $0 === self } ?? false
            adoptionLock.unlock()
            // A promise that follows this one adopted it, so its value type is this one's: the
            // downcast holds.
            if follows { found = Unmanaged.passUnretained(unsafeDowncast(node as AnyObject, to: PromiseCore<Value>.self)) }
        }
        return found
    }

    /// The one promise that follows this one, if this promise is a level it may skip: pending,
    /// following `adoptee`, with no child, no dependent but that follower, and interest tracked,
    /// so that the follower's cancel reaches `adoptee` the same way without it (R7). With the
    /// gate held.
    @inlinable
    nonisolated func skippableFollower(following adoptee: PromiseCore<Value>) -> PromiseCore<Value>? {
        guard machine.outcome == nil, tracksInterest, tree.hasNoChildren, tree.dependents == 1,
              machine.observers.count == 1, tree.adoptee.map({ $0 === adoptee }) ?? false else { return nil }
        adoptionLock.lock()
        defer { adoptionLock.unlock() }
        var next: PromiseCore<Value>?
        machine.observers.forEach { observer in
            guard observer.isFollowingPromise, let node = observer.promiseNode,
                  node.adopteeUnderAdoptionLock.map({ $0 === self }) ?? false else { return }
            // As in `followerHoldingGate`: a promise that follows this one has its value type.
            next = unsafeDowncast(node as AnyObject, to: PromiseCore<Value>.self)
        }
        return next
    }

    /// Moves `follower` out of the chain — `next` follows `adoptee` in its place — if nothing but
    /// the chain holds it and its parent, and hands the chain's last reference to it to `gone`;
    /// puts everything back otherwise. With the gates of all four held.
    @inlinable
    nonisolated func relink(
        _ follower: PromiseCore<Value>, of next: PromiseCore<Value>, to adoptee: PromiseCore<Value>,
        into gone: inout AnyObject?
    ) -> Bool {
        adoptionLock.lock()
        defer { adoptionLock.unlock() }
        // The chain's references to `follower`: `next`'s adoptee (kept in `held`), `adoptee`'s
        // observer and the parent's child (both let go).
        var held: AnyObject? = next.tree.adoptee
        next.tree.setAdopteeHoldingLock(adoptee)
        guard adoptee.machine.observers.replace(follower, with: next) != nil else {
            next.tree.setAdopteeHoldingLock(follower)
            return false
        }
        let wasChild = follower.parent?.detachChild(follower) ?? false
        // Counted with no reference of this function's own to either: `follower`'s first (once
        // it is known that nothing else reaches it, nothing else reads its parent either).
        guard isKnownUniquelyReferenced(&held), follower.holdsOnlyReferenceToParent() else {
            if wasChild { follower.parent?.attachChild(follower) }
            _ = adoptee.machine.observers.replace(next, with: follower)
            next.tree.setAdopteeHoldingLock(follower)
            return false
        }
        // Nothing else reaches `follower` or its parent: `follower` lets go of what it held, and
        // both are freed once the caller has left the gates (the parent with `follower`).
        _ = follower.machine.observers.take()
        follower.tree.setAdopteeHoldingLock(nil)
        gone = held.take()
        return true
    }

    /// Whether this promise's reference to its parent is the only one (or it has none).
    /// Read in place: the parent is an existential whose first word is the object.
    @inlinable
    nonisolated func holdsOnlyReferenceToParent() -> Bool {
        guard parent != nil else { return true }
        return withUnsafeMutablePointer(to: &parent) { slot in
            slot.withMemoryRebound(to: AnyObject?.self, capacity: 1) { isKnownUniquelyReferenced(&$0.pointee) }
        }
    }
}

extension StateActor {
    /// Enters the gate if it is free, for ``collapseFollowers()``; `nil` if it is taken.
    @usableFromInline
    nonisolated func enterGateIfFree() -> GateEntry? {
        guard gate.tryEnter() else { return nil }
        return GateEntry(outer: recordIsolation())
    }

    /// Leaves the gate that ``enterGateIfFree()`` entered.
    @usableFromInline
    nonisolated func leaveGate(_ entry: GateEntry) {
        gate.leave(restoring: entry.outer)
    }

    /// Removes `child` from the children, with the gate held; returns whether it was a child.
    @usableFromInline
    nonisolated func detachChild(_ child: any PromiseNode) -> Bool {
        tree.removeChild(child)
    }

    /// Puts back a child that ``detachChild(_:)`` removed, with the gate held.
    @usableFromInline
    nonisolated func attachChild(_ child: any PromiseNode) {
        tree.insertChild(child)
    }
}
