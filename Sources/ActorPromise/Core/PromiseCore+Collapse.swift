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
    /// The follower is reached through an unretained reference only (`found`, captured by the
    /// nested scopes as a plain value), so that no reference of this function's own counts
    /// against it. Safety: it stays alive throughout, held by the chain — the adoptee of its
    /// follower and an observer of this promise, which change only under the gates held here —
    /// until the level's removal moves the last of those references into `gone`.
    @inlinable
    nonisolated func collapseOneFollower(_ gone: inout AnyObject?) -> Bool {
        withStateIfGateFree { machine, _ in
            guard machine.outcome == nil, let held = follower(among: machine.observers) else { return false }
            // From here on unretained (held by the chain, see above): the scan's reference is let
            // go before anything is counted.
            let found = Unretained(held)
            _ = consume held
            return found.with { follower in
                follower.withStateIfGateFree { followerMachine, followerTree in
                    guard let next = found.with({ $0.skippableFollower(followerMachine, followerTree, following: self) })
                    else { return false }
                    return next.withStateIfGateFree { nextMachine, nextTree in
                        guard nextMachine.outcome == nil,
                              nextTree.adoptee.map({ $0 === found.object }) ?? false else { return false }
                        let level = CollapsibleLevel(promise: Unretained(self), follower: found, next: Unretained(next))
                        return level.remove(
                            observers: &machine.observers, follower: &followerMachine, &followerTree, next: &nextTree, into: &gone)
                    } ?? false
                } ?? false
            }
        } ?? false
    }

    /// The promise among `observers` that follows this one — an observer that is a promise of this
    /// type and follows this one. With the gate held.
    @inlinable
    nonisolated func follower(among observers: borrowing ObserverList<Value>) -> PromiseCore<Value>? {
        var found: PromiseCore<Value>?
        observers.forEach { observer in
            // The status bit first, so that other observers cost no lock.
            guard found == nil, observer.isFollowingPromise else { return }
            adoptionLock.lock()
            let follows = observer.follows(self)
            adoptionLock.unlock()
            // Only a promise follows another, and one that follows this promise adopted it, so
            // its value type is this one's: the downcast holds.
            if follows { found = PromiseCore<Value>.known(observer as AnyObject) }
        }
        return found
    }

    /// The one promise that follows this one, if this promise (its state `machine` and `tree`,
    /// its gate held) is a level it may skip: pending, following `adoptee`, with no child, no
    /// dependent but that follower, and interest tracked, so that the follower's cancel reaches
    /// `adoptee` the same way without it (R7).
    @inlinable
    nonisolated func skippableFollower(
        _ machine: borrowing PromiseStateMachine<Value>, _ tree: borrowing TreeState, following adoptee: PromiseCore<Value>
    ) -> PromiseCore<Value>? {
        guard machine.outcome == nil, tracksInterest, tree.hasNoChildren, tree.dependents == 1,
              machine.observers.count == 1, tree.adoptee.map({ $0 === adoptee }) ?? false else { return nil }
        return follower(among: machine.observers)
    }
}

/// One level of a recursive loop's chain of adoptions, as the collapse removes it, named as in the
/// Architecture article: `promise` (the one that has just started following the next level), its
/// follower `F`, the promise `R` that follows `F` (`next`), and `chain`: `F`, then its step `S`
/// and the promises `S` derives from, each looked up once, as the walk up needs it (at most four).
/// Every reference is unretained, so that none of the collapse's own counts against the
/// references it counts. Safety: each is held by the chain while the collapse runs — `F` by `R`'s
/// adoptee and `promise`'s observers, each ancestor by the `parent` of the one below it, which
/// never changes while the promise lives — and `R` and `promise` by the collapse's caller.
@usableFromInline
struct CollapsibleLevel<Value: Sendable> {
    @usableFromInline let promise: Unretained<PromiseCore<Value>>
    @usableFromInline let follower: Unretained<PromiseCore<Value>>
    @usableFromInline let next: Unretained<PromiseCore<Value>>

    @inlinable
    init(promise: Unretained<PromiseCore<Value>>, follower: Unretained<PromiseCore<Value>>, next: Unretained<PromiseCore<Value>>) {
        self.promise = promise
        self.follower = follower
        self.next = next
    }

    /// Moves `F` out of the chain — `R` follows `promise` in its place — if nothing but the chain
    /// holds it and its ancestors, and hands the chain's last reference to it to `gone`; puts
    /// everything back otherwise. With the gates of the three held: `promise`'s `observers`, `F`'s
    /// state and `R`'s tree are theirs. (Each promise is used only for the call that names it, so
    /// that no use holds `F` while it is counted.)
    @inlinable
    func remove(
        observers: inout ObserverList<Value>, follower followerMachine: inout PromiseStateMachine<Value>,
        _ followerTree: inout TreeState, next nextTree: inout TreeState, into gone: inout AnyObject?
    ) -> Bool {
        adoptionLock.lock()
        defer { adoptionLock.unlock() }
        // The chain's references to `F`: `R`'s adoptee (kept in `reference`), `promise`'s
        // observer and `S`'s child (both let go).
        var reference: AnyObject? = nextTree.adoptee
        nextTree.setAdopteeHoldingLock(promise.object)
        guard follower.with({ observers.replace($0, with: next.object) }) != nil else {
            nextTree.setAdopteeHoldingLock(follower.object)
            return false
        }
        let chain = follower.with { UnretainedNodes($0, parent: $0.parent) }
        let collapsed = if chain.count == 1 {
            isKnownUniquelyReferenced(&reference)
        } else {
            // Whether `S` is held by `F` alone, read here, where `F`'s type is known. Nothing can
            // take a new reference to `S` meanwhile: that needs one to `S` already (then the
            // count is not one), or `F`, which only the chain reaches — through the gates and the
            // lock held here, and `S`'s children, which need `S`.
            ancestorsLetGo(of: chain, stepHeldByFollowerAlone: follower.with { $0.holdsOnlyReferenceToParent() },
                           &reference)
        }
        guard collapsed else {
            _ = observers.replace(next.object, with: follower.object)
            nextTree.setAdopteeHoldingLock(follower.object)
            return false
        }
        // Nothing else reaches `F` or its ancestors: `F` lets go of what it held, and it is freed
        // once the caller has left the gates, its ancestors with it.
        _ = followerMachine.observers.take()
        followerTree.setAdopteeHoldingLock(nil)
        gone = reference.take()
        return true
    }
}

/// Up the ancestors of `F` (`chain[1]`), `S` first (`chain[2]`, already in the chain, and counted
/// already: `stepHeldByFollowerAlone`): each is entered (tried) and lets go of the one below it,
/// and then counted. The one below must now be
/// held by its own child alone (`F`, by `reference`); the level can go once an ancestor is held by
/// the one below alone. An ancestor held elsewhere too — by its own parent's children only, if it
/// is settled with no child left — passes the question one level up. If the level stays, each
/// ancestor takes back the child it let go of, from the top; the gates are left as `gates` ends,
/// from the top.
@usableFromInline
func ancestorsLetGo(of chain: UnretainedNodes, stepHeldByFollowerAlone: Bool, _ reference: inout AnyObject?) -> Bool {
    var gates = HeldGates(chain)
    var detached: UInt8 = 0
    var collapsed = false
    while let letGo = gates.enterNext() {
        // (No local holds a promise of the chain: a reference of the walk's own would count.)
        let depth = gates.held + 1
        if letGo { detached |= 1 << gates.held }
        if depth == 2 {
            guard isKnownUniquelyReferenced(&reference) else { break }
        } else {
            guard gates.chain[depth - 2].holdsOnlyReferenceToParent() else { break }
        }
        if depth == 2 ? stepHeldByFollowerAlone : gates.chain[depth - 1].holdsOnlyReferenceToParent() {
            collapsed = true
            break
        }
        // (The chain's capacity bounds the climb: four ancestors.)
        guard gates.isSettledWithoutChildren(at: depth), gates.chain.appendParent() else { break }
    }
    if !collapsed {
        for index in stride(from: gates.held + 1, through: 2, by: -1) where detached & (1 << (index - 1)) != 0 {
            gates.attachChild(at: index)
        }
    }
    return collapsed
}
