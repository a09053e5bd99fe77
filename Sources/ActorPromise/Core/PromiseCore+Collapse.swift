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
        guard machine.outcome == nil, let held = followerHoldingGate() else { return false }
        // From here on unretained: the scan's reference is let go before anything is counted.
        let found = Unmanaged.passUnretained(held)
        _ = consume held
        return found._withUnsafeGuaranteedRef { follower in
            guard follower.gate.tryEnter() else { return false }
            let outerF = follower.recordIsolation()
            defer { follower.gate.leave(restoring: outerF) }
            guard let next = follower.skippableFollower(following: self) else { return false }
            guard next.gate.tryEnter() else { return false }
            let outerR = next.recordIsolation()
            defer { next.gate.leave(restoring: outerR) }
            guard next.machine.outcome == nil, next.tree.adoptee.map({ $0 === follower }) ?? false else { return false }
            return relink(follower, of: next, to: self, into: &gone)
        }
    }

    /// This promise's follower — an observer that is a promise of this type and follows this
    /// one. With the gate held.
    @inlinable
    nonisolated func followerHoldingGate() -> PromiseCore<Value>? {
        var found: PromiseCore<Value>?
        machine.observers.forEach { observer in
            // The status bit first, so that other observers cost no lock.
            guard found == nil, observer.isFollowingPromise, let node = observer.promiseNode else { return }
            adoptionLock.lock()
            let follows = node.adopteeUnderAdoptionLock.map { $0 === self } ?? false
            adoptionLock.unlock()
            // A promise that follows this one adopted it, so its value type is this one's: the
            // downcast holds.
            if follows { found = unsafeDowncast(node as AnyObject, to: PromiseCore<Value>.self) }
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
        return followerHoldingGate()
    }

    /// Moves `follower` out of the chain — `next` follows `adoptee` in its place — if nothing but
    /// the chain holds it and its ancestors, and hands the chain's last reference to it to
    /// `gone`; puts everything back otherwise. With the gates of the three held.
    ///
    /// The ancestors are the loop's step and, when the step was derived from another promise (a
    /// `map` of a request, say), the promises it derives from, each held in its own parent's
    /// children only because the level below was pending. Each is entered (tried), lets go of the
    /// one below, and is counted; the walk stops at the first held by its child alone. Ancestors
    /// are reached through calls that hold them only while they run, so that they can be counted
    /// in between.
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
        // Up the ancestors (at most `AncestorGates.capacity`): the gate entry of the ancestor
        // `depth` levels above `follower`, and whether the one below it was its child.
        var entries = AncestorGates()
        var collapsed = false
        if follower.parent == nil {
            collapsed = isKnownUniquelyReferenced(&held)
        } else {
            while entries.count < AncestorGates.capacity, let entry = follower.ancestor(entries.count + 1)?.enterGateIfFree() {
                let depth = entries.count + 1
                // (No local holds the one below: a reference of the walk's own would count.)
                entries.append(entry, detached: follower.ancestor(depth)!.detachChild(depth == 1 ? follower : follower.ancestor(depth - 1)!))
                // The one below, now let go of by its parent, must be held by its own child alone:
                // `follower` first (once nothing else reaches it, nothing else reads its parents).
                if depth == 1 {
                    guard isKnownUniquelyReferenced(&held) else { break }
                } else {
                    guard follower.holdsOnlyReferenceToAncestor(depth - 1) else { break }
                }
                if follower.holdsOnlyReferenceToAncestor(depth) { collapsed = true; break }
                // Held elsewhere too: by its own parent's children only if it is settled with no
                // child left and has a parent to let go of it; then one level up.
                guard follower.ancestor(depth)!.isSettledWithoutChildren(), follower.ancestor(depth + 1) != nil else { break }
            }
        }
        guard collapsed else {
            // Put back as it was, from the top.
            for depth in stride(from: entries.count, through: 1, by: -1) {
                if entries.detached(depth) {
                    follower.ancestor(depth)!.attachChild(depth == 1 ? follower : follower.ancestor(depth - 1)!)
                }
                follower.ancestor(depth)!.leaveGate(entries.entry(depth))
            }
            _ = adoptee.machine.observers.replace(next, with: follower)
            next.tree.setAdopteeHoldingLock(follower)
            return false
        }
        for depth in stride(from: entries.count, through: 1, by: -1) {
            follower.ancestor(depth)!.leaveGate(entries.entry(depth))
        }
        // Nothing else reaches `follower` or its ancestors: `follower` lets go of what it held,
        // and it is freed once the caller has left the gates, its ancestors with it.
        _ = follower.machine.observers.take()
        follower.tree.setAdopteeHoldingLock(nil)
        gone = held.take()
        return true
    }

    /// The promise `depth` levels above this one (1: its parent), if there is one.
    @inlinable
    nonisolated func ancestor(_ depth: Int) -> (any PromiseNode)? {
        var node: (any PromiseNode)? = parent
        for _ in 1..<max(depth, 1) { node = node?.parentNode }
        return node
    }

    /// Whether the promise `depth` levels above this one is referenced only by the promise just
    /// below it (its child, through `parent`).
    @inlinable
    nonisolated func holdsOnlyReferenceToAncestor(_ depth: Int) -> Bool {
        depth == 1 ? holdsOnlyReferenceToParent() : ancestor(depth - 1)!.holdsOnlyReferenceToParent()
    }
}

extension StateActor {
    /// Whether this promise's reference to its parent is the only one (or it has none).
    ///
    /// The parent's address is read from `parent` (an existential whose first word is the object)
    /// and counted through a local that holds no reference, so that neither the check nor a copy
    /// of the parent counts against it. `parent` is only read: a handler that has just run reads
    /// it too, on its own thread (`withSource`), and an `inout` access here, although it writes
    /// nothing, raced with that read as ThreadSanitizer sees it — the ordering between the two is
    /// that thread's release of this promise, inside the Swift runtime, which TSan does not see.
    @usableFromInline
    nonisolated func holdsOnlyReferenceToParent() -> Bool {
        var object: UnsafeRawPointer? = withUnsafePointer(to: parent) { existential in
            existential.withMemoryRebound(to: UnsafeRawPointer?.self, capacity: 1) { $0.pointee }
        }
        guard object != nil else { return true }
        return withUnsafeMutablePointer(to: &object) { slot in
            slot.withMemoryRebound(to: AnyObject?.self, capacity: 1) { isKnownUniquelyReferenced(&$0.pointee) }
        }
    }

    /// Whether this promise is settled and holds no child, with the gate held.
    @usableFromInline
    nonisolated func isSettledWithoutChildren() -> Bool {
        tree.isSettled && tree.hasNoChildren
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

/// The gates a collapse holds up the ancestors of the level it collapses, and whether each let go
/// of the promise below it: four at most, kept in place (an array allocated per iteration of a
/// loop).
@usableFromInline
struct AncestorGates {
    @usableFromInline static var capacity: Int { 4 }
    @usableFromInline var entries: (GateEntry?, GateEntry?, GateEntry?, GateEntry?) = (nil, nil, nil, nil)
    @usableFromInline var detachedBits: UInt8 = 0
    @usableFromInline var count = 0

    @inlinable init() {}

    /// Records the entry of the ancestor one level above the last one.
    @inlinable
    mutating func append(_ entry: GateEntry, detached: Bool) {
        switch count {
        case 0: entries.0 = entry
        case 1: entries.1 = entry
        case 2: entries.2 = entry
        default: entries.3 = entry
        }
        if detached { detachedBits |= 1 << count }
        count += 1
    }

    /// The entry of the ancestor `depth` levels up (1 ... `count`).
    @inlinable
    func entry(_ depth: Int) -> GateEntry {
        switch depth {
        case 1: entries.0!
        case 2: entries.1!
        case 3: entries.2!
        default: entries.3!
        }
    }

    /// Whether the ancestor `depth` levels up let go of the promise below it.
    @inlinable
    func detached(_ depth: Int) -> Bool { detachedBits & (1 << (depth - 1)) != 0 }
}
