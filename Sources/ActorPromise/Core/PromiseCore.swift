import Synchronization

/// The state of one promise: the storage, and the scopes through which the rest of the library
/// reaches it.
///
/// The state is guarded by an ``AsyncGate``, a non-blocking mutex that is also the actor's serial
/// executor. Synchronous entry points (`then`, `fulfill`, `cancel`, …) enter the gate on the
/// calling thread, change the state and leave — no `Task`, no thread hop. A call that finds the
/// gate taken parks its operation for the thread inside. Observers are called only after the gate
/// is left.
///
/// This file is the only one that names the state's fields (`guardedMachine`, `guardedTree`) or
/// enters and leaves the gate; `scripts/layers.py` checks both. Everything else reaches the state
/// through a scope that holds the gate for as long as it runs, and whose end leaves it:
///
/// - ``perform(_:)``: one operation of the value half, entered or parked (the common path);
/// - ``performTree(_:)`` and ``performChildDone(_:)``: one operation of the tree half;
/// - ``withStateIfGateFree(_:)``: the two halves lent `inout` to a closure, if the gate is free
///   (the collapse, snapshots). Scopes nest: a collapse holds several gates, each left as its
///   scope ends, innermost first;
/// - ``HeldGates``: the gates of promises of unknown value types (the collapse's walk up a step's
///   ancestors), entered one by one and left, from the last, when the value ends. The collapse
///   counts references to those promises while it holds their gates, so it cannot reach them
///   through a closure-taking scope, whose call would hold the promise it counts;
/// - ``applyParked(_:holding:)``: an operation parked on the gate, applied by the thread leaving
///   it, which proves that it holds the gate with a ``GateHeld`` that only the gate can make.
///
/// Debug builds record, per thread, the gates it holds; every value transition, every parked
/// operation and every call that claims a gate another scope holds checks that the runtime agrees
/// (`assumeIsolated`, answered by `isIsolatingCurrentContext` from that record).
///
/// What the "actor" is: a promise's state with its own serial executor — the gate — entered
/// synchronously. No async code ever runs isolated to it (it has no isolated members, so nothing
/// is ever enqueued on it); the actor's executor exists so that the runtime's isolation checks
/// can confirm, in debug builds, that the state is touched only with the gate held.
///
/// The state has two halves. `guardedMachine` (generic: the outcome and the observers) is reached
/// from code specialized for `Value`. `guardedTree` (non-generic: children, interest) is reached
/// from tree walks that do not know `Value`, and is kept outside the generic layout so those walks
/// run no generic code.
///
/// The library names it ``PromiseCore``: `Machine` is always `PromiseStateMachine<Value>`. It is
/// a parameter of its own for the sake of `deinit`, which runs unspecialized: a field typed with
/// one of the class's own parameters is destroyed through that parameter's metadata, which the
/// object's class already holds, whereas a field typed `PromiseStateMachine<Value>` made every
/// release look that type's metadata up in the runtime's cache. Members that touch the value half
/// live in extensions constrained to the one instantiation; the few protocol requirements that
/// need it reach it through ``typed``.
@usableFromInline
actor StateActor<Value: Sendable, Machine>: SerialExecutor, PromiseNode, TreeHolder {
    // Field order: every field of fixed size first (so the unspecialized `deinit` and `Runnable`
    // requirements reach them at fixed offsets); the tree and the machine each end in their flags'
    // byte, and the small fields fill the tail, so that the object fits the smallest malloc
    // size class it can (memory per promise, in the Performance article).
    @usableFromInline nonisolated let gate = AsyncGate()
    /// The parent, for `parent`/`root` and for reports up the tree. A `var` only so that `deinit`
    /// can move it out and release long chains without recursion. Spelled `Optional<…>`, not
    /// `…?`: a `?` variable starts out `nil`, which made `init`'s store a reassignment that
    /// released the `nil` it replaced (a call per promise).
    @usableFromInline @exclusivity(unchecked) final nonisolated(unsafe) var parent: Optional<any PromiseNode>
    /// A derived promise's handler and where it runs (see ``Link``); for other promises, the slot
    /// their hook's closure waits in (see ``CoreHooks``). Not guarded by the gate: it has its own
    /// hand-over rule, written beside the type.
    @usableFromInline @exclusivity(unchecked) final nonisolated(unsafe) var link: Link
    /// The tree half. Touched only with the gate held, through this file's scopes; the gate
    /// guarantees exclusive access, so the dynamic exclusivity check is off.
    @usableFromInline @exclusivity(unchecked) final nonisolated(unsafe) var guardedTree: TreeState
    /// The value half, as the tree half. `nonisolated(unsafe)` so that release builds reach it
    /// without the runtime's isolation query and a function-type cast, which cost more than the
    /// operation itself (debug builds make the query at every scope's entry).
    @usableFromInline @exclusivity(unchecked) final nonisolated(unsafe) var guardedMachine: Machine
    /// Settled, cancelled, cancelled while pending: written under the gate, read without it. It
    /// also carries the flags set at creation (``tracksInterest``, ``observesCancellation``,
    /// ``runsInline``, which a promise that starts following another sets too), which every write
    /// keeps.
    @usableFromInline nonisolated let status: Atomic<PromiseStatus>
    /// Set at the hand-over when this derived promise's handler is the last of its parent's
    /// delivery (R2); read by the handler's run. Follows ``Link``'s hand-over rule.
    @usableFromInline @exclusivity(unchecked) final nonisolated(unsafe) var endsDelivery = false
    /// This promise's slot in its parent's ``ChildSet``. Guarded by the parent's gate, not this
    /// promise's: only the parent's set writes and reads it.
    @usableFromInline @exclusivity(unchecked) final nonisolated(unsafe) var slotInParent = UInt32.max
    #if DEBUG
    /// Where the promise was made (debug builds only: see ``PromiseSite``).
    @usableFromInline nonisolated let site: PromiseSite
    /// The test runtime the promise was made under, if any (debug builds only).
    @usableFromInline nonisolated let madeUnder: RuntimeLink?
    #endif

    /// Use the initializer of ``PromiseCore``, which takes a `PromiseStateMachine<Value>`.
    @inlinable
    init(
        machine: consuming Machine, settled: Bool, rejected: Bool, tracksInterest: Bool, parent: (any PromiseNode)?,
        link: consuming Link, observesCancellation: Bool, site: PromiseSite, rare: RareHandoff
    ) {
        let flags = TreeState.flags(
            isSettled: settled, tracksInterest: tracksInterest, observesCancellation: observesCancellation,
            runsInline: link.context.map { type(of: $0) == InlineContext.self } ?? false)
        self.status = Atomic(PromiseStatus(rawValue: flags.rawValue & TreeFlags.published.rawValue))
        self.parent = parent
        // A side object made already keeps the site for failure traces (release builds, R16).
        let brought = rare.take()
        self.guardedTree = TreeState(flags: rejected ? flags.union(.rejected) : flags, rare: brought)
        self.guardedMachine = machine
        self.link = link
        #if DEBUG
        self.site = site
        self.madeUnder = RuntimeLink.current()
        if !settled { registerPendingIfTracking(site: site) }
        #else
        // Release builds track here the promises that brought a side object, which operators and
        // resolvers make while tracking is on (see `PromiseDiagnostics.tracksPending`); `pending()`,
        // `lazy` and the library's branches, made without one, register themselves
        // (`registerInReleaseIfTracking`).
        if !settled, brought != nil { registerPendingIfTracking(site: site) }
        #endif
    }

    /// In a release build, enters this promise, just made pending without a side object
    /// (`pending()`, `lazy`, a branch), in the pending registry if tracking is on: one relaxed
    /// load while it is off. Debug builds register every promise in `init`.
    @inlinable @inline(__always)
    nonisolated func registerInReleaseIfTracking(site: PromiseSite) {
        #if !DEBUG
        if PendingRegistry.isOn { registerPendingIfTracking(site: site) }
        #endif
    }

    /// Enters this promise, just made pending, in the pending registry if tracking is on. Out of
    /// line, so that `init`, inlined where promises are made, stays small.
    @usableFromInline @inline(never)
    nonisolated func registerPendingIfTracking(site: PromiseSite) {
        guard PendingRegistry.isOn else { return }
        guardedTree.flags.insert(.pendingTracked)
        registerPending(site: site)
    }

    deinit {
        if guardedTree.flags.rawValue & TreeFlags.reportedOnRelease.rawValue != 0 { reportRelease() }
        guard parent != nil else { return }
        var slot: AnyObject? = parent.take()
        // A parent that others still hold (a fan-out's root, say) is not freed by this release,
        // so no chain of deinitializers can follow: release it here, without the thread's
        // graveyard. Should the other holders let go meanwhile, the parent is freed inside this
        // deinit and buries its own parent in turn: one level of stack, not a chain.
        guard isKnownUniquelyReferenced(&slot) else { return }
        ThreadState.withCurrent { $0.bury(&slot) }
    }

    /// What a released promise reports, out of line (`deinit` runs unspecialized): it leaves the
    /// pending registry first, so that a snapshot never reads it further; then a rejection no party
    /// took (R14) — nobody ever registered as a dependent, and every observer does. (Nothing else
    /// holds the promise: no gate.)
    @inline(never)
    nonisolated func reportRelease() {
        if guardedTree.flags[.pendingTracked] { PendingRegistry.remove(ObjectIdentifier(self)) }
        if guardedTree.flags[.rejected], guardedTree.dependents == 0 { reportUnhandled() }
    }

    /// Reports this promise's rejection to ``PromiseDiagnostics``, unless it is a cancellation or
    /// an abandonment (R14).
    nonisolated func reportUnhandled() {
        guard case .failure(let error)? = typed.publishedOutcome, !error.isCancellation,
              (error as? PromiseError)?.code != .abandoned else { return }
        PromiseDiagnostics.reportUnhandled(UnhandledRejection(
            error: error, site: siteText ?? "an unrecorded site (sites are recorded in debug builds)",
            trace: traceNode.map { PromiseTrace($0, handledBy: nil) }))
    }

    /// `File.swift:42` where the promise was made, when recorded (debug builds).
    @usableFromInline nonisolated var siteText: String? {
        #if DEBUG
        site.text
        #else
        nil
        #endif
    }

    // MARK: Executor

    @usableFromInline
    nonisolated var unownedExecutor: UnownedSerialExecutor { asUnownedSerialExecutor() }

    /// Never called: the actor has no isolated members, so no job is ever isolated to it (see
    /// above). A job that arrived all the same would run nowhere, so it stops the program rather
    /// than be lost.
    @usableFromInline
    nonisolated func enqueue(_ job: consuming ExecutorJob) {
        preconditionFailure("a job was enqueued on a promise's state actor, which runs none")
    }

    @inlinable
    nonisolated var identity: UnsafeRawPointer { UnsafeRawPointer(Unmanaged.passUnretained(self).toOpaque()) }

    @usableFromInline
    nonisolated func isIsolatingCurrentContext() -> Bool? {
        isIsolated(to: identity)
    }

    @usableFromInline
    nonisolated func checkIsolated() {
        precondition(isIsolated(to: identity), "not isolated to this promise's state actor")
    }

    // MARK: Tree scopes (no generic code: reached through `any PromiseNode`)

    @usableFromInline
    nonisolated func performTree(_ op: TreeOp) -> TreeStep? {
        guard gate.tryEnter() || gate.enterOrPark(ParkedTreeOp(self, op)) else { return nil }
        beginInside()
        let step = guardedTree.apply(op)
        endInside()
        gate.leave()
        return step
    }

    @usableFromInline
    nonisolated func performChildDone(_ child: borrowing any PromiseNode) -> TreeStep? {
        guard gate.tryEnter() || gate.enterOrPark(ParkedTreeOp(self, .childDone(copy child))) else { return nil }
        beginInside()
        let step = guardedTree.childDone(child)
        endInside()
        gate.leave()
        return step
    }

    nonisolated func applyParked(_ op: TreeOp, holding _: borrowing GateHeld) -> TreeStep {
        beginInside()
        defer { endInside() }
        #if DEBUG
        assumeIsolated { _ in }
        #endif
        return guardedTree.apply(op)
    }

    @usableFromInline
    nonisolated func enterGateIfFree(detaching child: any PromiseNode) -> Bool? {
        guard gate.tryEnter() else { return nil }
        beginInside()
        return guardedTree.removeChild(child)
    }

    @usableFromInline
    nonisolated func leaveGate() {
        endInside()
        gate.leave()
    }

    @usableFromInline
    nonisolated func attachChildHoldingGate(_ child: any PromiseNode) {
        #if DEBUG
        assumeIsolated { _ in }
        #endif
        guardedTree.insertChild(child)
    }

    @usableFromInline
    nonisolated func isSettledWithoutChildrenHoldingGate() -> Bool {
        #if DEBUG
        assumeIsolated { _ in }
        #endif
        return guardedTree.flags[.settled] && guardedTree.hasNoChildren
    }

    /// Does what a parked tree operation left to do, once the gate is left.
    nonisolated func continueTree(_ step: TreeStep) {
        switch step {
        case .nothing: break
        case .reportDone: reportDone()
        case .reattachUpward: reattachUpward(from: self)
        case .cancelSelf: cancelTree(self, reason: nil, origin: tracesAreOn ? .lostInterest(PromiseSite()) : nil)
        }
    }
}

/// A promise's state actor: see ``StateActor``.
@usableFromInline
typealias PromiseCore<Value: Sendable> = StateActor<Value, PromiseStateMachine<Value>>

// Value operations live in an extension: extension methods are dispatched statically, so calls
// from client code specialize for `Value` (methods in an actor's body go through its vtable).
extension StateActor where Machine == PromiseStateMachine<Value> {
    /// Creates a promise's state: settled if `machine` holds an outcome.
    @inlinable
    init(
        _ machine: PromiseStateMachine<Value>, tracksInterest: Bool = true, parent: (any PromiseNode)? = nil,
        link: consuming Link = Link(), observesCancellation: Bool = false, site: PromiseSite = PromiseSite(),
        rare: RareHandoff = .none
    ) {
        let settled = machine.outcome != nil
        let rejected = if case .failure? = machine.outcome { true } else { false }
        self.init(
            machine: machine, settled: settled, rejected: rejected, tracksInterest: tracksInterest, parent: parent,
            link: link, observesCancellation: observesCancellation, site: site, rare: rare)
    }

    // MARK: Value scopes (specialized at the call site)

    /// Applies `op` now if the gate is free, or parks it for the thread inside.
    ///
    /// - Returns: The effects of `op` when it was applied now (the caller carries them out);
    ///   `nil` when it was parked (the thread inside carries them out).
    @inlinable @inline(__always)
    nonisolated func perform(_ op: consuming PromiseOp<Value>) -> PromiseEffects<Value>? {
        // `op` is consumed by the transition, which moves its observer and child into the state
        // instead of copying them (a retain and a release each); parking keeps a copy.
        if !gate.tryEnter() {
            guard gate.enterOrPark(ParkedValueOp(self, copy op)) else { return nil }
        }
        beginInside()
        let effects = apply(op)
        endInside()
        gate.leave()
        return effects
    }

    /// Applies `op`, parked on the gate, which `held` proves this thread holds.
    nonisolated func applyParked(_ op: PromiseOp<Value>, holding _: borrowing GateHeld) -> PromiseEffects<Value> {
        beginInside()
        defer { endInside() }
        return apply(op)
    }

    /// The transition, with the gate held; publishes the status it leaves.
    @inlinable @inline(__always)
    nonisolated func apply(_ op: consuming PromiseOp<Value>) -> PromiseEffects<Value> {
        #if DEBUG
        // Debug builds prove the isolation on every operation: the runtime asks
        // `isIsolatingCurrentContext`, which answers from the thread's record of held gates.
        assumeIsolated { _ in }
        #endif
        var hooks = CoreHooks(core: self)
        let effects = guardedMachine.apply(op, tree: &guardedTree, hooks: &hooks)
        let published = status.load(ordering: .relaxed)
        if effects.status != published {
            #if ACTORPROMISE_INTERLEAVINGS
            if effects.status.contains(.settled), !published.contains(.settled) {
                modelledAccess(self, "the outcome", writes: true)
            }
            #endif
            schedulingPoint("status.store")
            status.store(effects.status, ordering: .releasing)
            // Other threads may act on the status from here on: the checker lets them, so that a
            // write the status announces but that comes after it shows.
            schedulingPoint("status.published")
        }
        return effects
    }

    /// Lends the state — the value half and the tree half, `inout` — to `body` if the gate is
    /// free, and leaves the gate when `body` returns; `nil` if another thread holds the gate.
    /// `body` must not wait for another promise's gate (it may try one, as the collapse does).
    @inlinable
    nonisolated func withStateIfGateFree<Result>(_ body: (inout PromiseStateMachine<Value>, inout TreeState) -> Result) -> Result? {
        guard gate.tryEnter() else { return nil }
        beginInside()
        let result = body(&guardedMachine, &guardedTree)
        endInside()
        gate.leave()
        return result
    }

    /// Ends a delivery of observers (R2). In the common case — nobody registered an observer
    /// meanwhile — release builds clear the flag under the gate directly, without building and
    /// carrying out effects; otherwise this is `send(.endDelivery)`.
    @inlinable
    nonisolated func endDeliveryNow() {
        #if !DEBUG
        if gate.tryEnter() {
            // A mutating call works on the state in place (reading a field would copy it all).
            let quiet = guardedMachine.endQuietDelivery()
            gate.leave()
            if quiet { return }
        }
        #endif
        send(.endDelivery)
    }

    /// Starts the trace of a promise made rejected at `site` (R16), before it is shared (so
    /// without the gate). Out of line: traces are on.
    @usableFromInline
    nonisolated func traceMadeRejected(at site: PromiseSite, cause: TraceCause) {
        guardedTree.recordTrace(TraceNode(cause: cause, site: site, isCancellation: false))
    }

    // MARK: Reads without the gate

    /// The outcome, once settled. Safe without the gate: the outcome is written once, before the
    /// settled bit is published with release ordering, and never changes afterwards.
    @inlinable
    nonisolated var settledOutcome: Outcome<Value>? {
        guard isSettled else { return nil }
        modelledAccess(self, "the outcome", writes: false)
        return guardedMachine.outcome
    }

    /// The outcome, read by a party that knows the promise has settled without asking the status:
    /// an observer handed this promise's outcome (the hand-over orders the read after the
    /// settlement), a derived promise reading its parent's in its run, `deinit`. Reads that one
    /// field in place, never the whole state.
    @inlinable
    nonisolated var publishedOutcome: Outcome<Value>? { guardedMachine.outcome }
}

extension StateActor {
    /// This actor as the one instantiation there is: `Machine` is `PromiseStateMachine<Value>`
    /// (see ``PromiseCore``). Free in specialized code: no check, no conversion. (In an
    /// extension, so that calls are static: a member of the actor's body goes through its vtable,
    /// unspecialized, and returned a retained reference.)
    @inlinable @inline(__always)
    nonisolated var typed: PromiseCore<Value> { unsafeDowncast(self, to: PromiseCore<Value>.self) }

    /// `object` as a promise of this type, without a check: for callers that know it is one, each
    /// saying why beside the call (debug builds check).
    @inlinable @inline(__always)
    static func known(_ object: AnyObject) -> PromiseCore<Value> {
        assert(object is PromiseCore<Value>, "not a promise of \(Value.self)")
        return unsafeDowncast(object, to: PromiseCore<Value>.self)
    }

    /// Begins the inside of this promise's gate, which the caller has just entered: debug builds
    /// record the gate as held by this thread until ``endInside()``, so that the runtime's
    /// isolation checks — every value transition makes one (``apply(_:)``), and so does every
    /// call that claims a gate some other scope holds — find it. Release builds make no isolation
    /// query, so they keep no record. (No closure: a scope's closure would capture the promise,
    /// and the collapse counts references to promises whose gates it holds. In an extension: from
    /// the actor's body it was a call through the vtable.)
    @inlinable @inline(__always)
    nonisolated func beginInside() {
        #if DEBUG
        enterIsolation(identity)
        #endif
        // The state is ordered by the gate alone: the checker's memory model checks that it is.
        modelledAccess(self, "the state", writes: true)
    }

    /// Ends what ``beginInside()`` began, before the gate is left.
    @inlinable @inline(__always)
    nonisolated func endInside() {
        #if DEBUG
        leaveIsolation(identity)
        #endif
    }

    /// Reports this promise done to its parent, and on up while parents become done in turn.
    /// The first hop reads the parent in place: this promise holds it for as long as it lives,
    /// so no retain is needed (a fan-out reports every handler's child done to one root).
    @inlinable
    nonisolated func reportDone() {
        guard parent != nil else { return }
        // Not retained: this promise holds its parent until its `deinit`.
        unowned(unsafe) let parent = parent!
        let step = parent.performChildDone(self)
        if step == .reportDone { reportDoneUpward(from: parent) }
    }

    /// Safe with ``adoptionLock`` held: every write of the adoptee holds it too.
    /// Reads only the `rare` field of the tree (and the box's adoptee), never the whole tree, which
    /// the gate holder may be changing meanwhile. That is sound because the gate holder changes
    /// the tree in place — `guardedTree` is a stored property of this final class, so a mutating
    /// call works on its address and never copies the struct out and back — and so touches
    /// `rare`'s bytes only when it assigns `rare` itself, which it does under the lock.
    @usableFromInline nonisolated var adopteeUnderAdoptionLock: (any PromiseNode)? { guardedTree.rare?.adoptee }

    /// Whether this promise follows `promise`: ``adopteeUnderAdoptionLock`` compared in place,
    /// without taking a reference to the adoptee (a retain and a release, and the existential's
    /// copy, for every follower the collapse looks at). With ``adoptionLock`` held.
    @usableFromInline nonisolated func follows(_ promise: AnyObject) -> Bool {
        guardedTree.rare.map { $0.adoptee.map { $0 === promise } ?? false } ?? false
    }

    /// The path of this promise's failure (R16), read under ``adoptionLock``, as the adoptee is.
    @usableFromInline nonisolated var traceNode: TraceNode? {
        adoptionLock.withLockUnscheduled { guardedTree.rare?.trace }
    }

    /// Where this promise was made, and by which operation (see ``PromiseNode/traceSite``).
    @usableFromInline nonisolated var traceSite: PromiseSite {
        #if DEBUG
        site
        #else
        adoptionLock.withLockUnscheduled { guardedTree.rare?.site } ?? PromiseSite()
        #endif
    }

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
}

/// A promise's ``HookStore``: the handler slot of its link. Only a derived promise uses the slot
/// for a handler, and a derived promise has no hook (no lazy body; no resolver to register a
/// cancellation handler), so the two never meet. The state machine reaches the store under the
/// gate, and only when its `hook` says a closure is there; `carryOut` takes a lazy body out after
/// the machine has handed it out, before the body makes the resolver through which anything else
/// could reach the store.
@usableFromInline
struct CoreHooks<Value: Sendable>: HookStore {
    /// The promise whose gate is held while this store is used: alive throughout.
    @usableFromInline unowned(unsafe) let core: PromiseCore<Value>

    @inlinable init(core: PromiseCore<Value>) { self.core = core }

    @inlinable
    mutating func put(_ closure: consuming ErasedClosure) { core.link.body = closure }

    @inlinable
    mutating func take<Body>(as _: Body.Type) -> Body? {
        guard core.link.body != nil else { return nil }
        return core.link.takeBody(as: Body.self)
    }

    @inlinable
    mutating func drop() { core.link.body = nil }

    /// Read without the adoptee's gate: its outcome, once published as settled, never changes.
    /// Safety of the downcast: a promise follows only promises of its own value type.
    @inlinable
    func outcome<V: Sendable>(of adoptee: any PromiseNode, as _: V.Type) -> Outcome<V>? {
        PromiseCore<V>.known(adoptee as AnyObject).settledOutcome
    }

    /// The adoptee's failure trace, carried on through this promise (R16). Out of line: traces
    /// are on.
    @usableFromInline
    func traceFollowing(_ adoptee: any PromiseNode) -> TraceNode? {
        adoptee.traceNode?.passing(through: core.traceSite)
    }
}

/// The gates of a promise's ancestors (up to four, of unknown value types), entered one after
/// another up the chain and left in the reverse order when the value ends (its `deinit`): the
/// collapse's walk up a step's ancestors (see `PromiseCore+Collapse.swift`). `chain` is the
/// promise the walk starts below (whose gate this value never enters) and its ancestors, found as
/// the walk needs them. Each promise is reached only for the call that enters its gate or changes
/// its tree, and is held by nothing of this value's own, so that the walk can count the references
/// to it in between.
@usableFromInline
struct HeldGates: ~Copyable {
    @usableFromInline var chain: UnretainedNodes
    /// How many gates are held: those of `chain[2]` up to `chain[held + 1]`.
    @usableFromInline var held = 0

    @usableFromInline init(_ chain: UnretainedNodes) { self.chain = chain }

    /// Enters the gate of the next ancestor, `chain[held + 2]`, if it is free, and removes the
    /// promise below it from its children; returns `nil` if it did not enter (or there is no next
    /// ancestor), else whether the one below was its child.
    @usableFromInline
    mutating func enterNext() -> Bool? {
        guard held + 2 <= chain.count, let detached = chain[held + 2].enterGateIfFree(detaching: chain[held + 1]) else {
            return nil
        }
        held += 1
        return detached
    }

    /// Puts back the child that ``enterNext()`` removed from `chain[index]`.
    @usableFromInline
    func attachChild(at index: Int) {
        chain[index].attachChildHoldingGate(chain[index - 1])
    }

    /// Whether `chain[index]`, whose gate is held, is settled and holds no child.
    @usableFromInline
    func isSettledWithoutChildren(at index: Int) -> Bool {
        chain[index].isSettledWithoutChildrenHoldingGate()
    }

    deinit {
        var index = held + 1
        while index > 1 {
            chain[index].leaveGate()
            index -= 1
        }
    }
}

/// A promise held by nothing of this value's own, read without ever retaining it: the pending
/// registry's entry, which must not keep its promise alive — nor, by a retain and a release of its
/// own, become the last holder whose release runs the promise's `deinit` on the registry's thread,
/// inside the shard's lock that this `deinit` takes. Safety: the registry reads it only under its
/// shard's lock, and the promise removes its entry under that lock as the first step of its
/// `deinit`, so its memory and its fields are intact whenever it is read.
@usableFromInline
struct UnretainedNode: Sendable {
    /// The promise's address.
    private let address: UInt
    /// Its type, which reads it at an address.
    private let reader: any UnretainedReading.Type

    init<Node: UnretainedReading>(_ node: Node) {
        address = UInt(bitPattern: Unmanaged.passUnretained(node).toOpaque())
        reader = Node.self
    }

    /// What the pending registry reads of the promise: `nil` once it has settled.
    var pendingFacts: PendingFacts? { reader.pendingFacts(at: address) }

    /// The promise it follows, if any; with ``adoptionLock`` held.
    var adopteeUnderAdoptionLock: ObjectIdentifier? { reader.adoptee(at: address) }
}

/// A promise type that ``UnretainedNode`` reads at an address.
protocol UnretainedReading: AnyObject, Sendable {
    static func pendingFacts(at address: UInt) -> PendingFacts?
    static func adoptee(at address: UInt) -> ObjectIdentifier?
}

extension StateActor: UnretainedReading {
    static func pendingFacts(at address: UInt) -> PendingFacts? { reading(at: address) { $0.pendingFacts } }

    static func adoptee(at address: UInt) -> ObjectIdentifier? {
        reading(at: address) { promise in promise.adopteeUnderAdoptionLock.map { ObjectIdentifier($0) } }
    }

    /// Runs `body` with the promise at `address`, borrowed: no retain, no release.
    private static func reading<Result>(at address: UInt, _ body: (StateActor) -> Result) -> Result {
        Unmanaged<StateActor>.fromOpaque(UnsafeRawPointer(bitPattern: address)!)._withUnsafeGuaranteedRef(body)
    }
}

/// A promise and up to four of its ancestors, held by nothing of this value's own: for walks that
/// count the references to the promises they visit (the collapse). Indexed from 1: the promise,
/// its parent, and so on; each looked up once, when the walk first needs it. Safety: the walk keeps each alive otherwise — it holds the first (or the
/// chain does), and a promise holds its parent for as long as it lives.
@usableFromInline
struct UnretainedNodes {
    @usableFromInline static var capacity: Int { 5 }
    @usableFromInline unowned(unsafe) var first: (any PromiseNode)?
    @usableFromInline unowned(unsafe) var second: (any PromiseNode)?
    @usableFromInline unowned(unsafe) var third: (any PromiseNode)?
    @usableFromInline unowned(unsafe) var fourth: (any PromiseNode)?
    @usableFromInline unowned(unsafe) var fifth: (any PromiseNode)?
    @usableFromInline var count = 0

    /// `node` and its `parent`, if it has one; ``appendParent()`` adds the parents above, one at
    /// a time, as a walk needs them.
    @inlinable
    init(_ node: any PromiseNode, parent: (any PromiseNode)?) {
        first = node
        second = parent
        count = parent == nil ? 1 : 2
    }

    /// Adds the parent of the last promise, if it has one and there is room; returns whether it
    /// did. (The parent is held only while this call runs: a walk counts references in between.)
    @usableFromInline
    mutating func appendParent() -> Bool {
        guard count < Self.capacity, let parent = self[count].parentNode else { return false }
        append(parent)
        return true
    }

    @usableFromInline
    mutating func append(_ node: any PromiseNode) {
        switch count {
        case 0: first = node
        case 1: second = node
        case 2: third = node
        case 3: fourth = node
        default: fifth = node
        }
        count += 1
    }

    /// The `index`-th promise (1 ... `count`).
    @usableFromInline
    subscript(index: Int) -> any PromiseNode {
        switch index {
        case 1: first.unsafelyUnwrapped
        case 2: second.unsafelyUnwrapped
        case 3: third.unsafelyUnwrapped
        case 4: fourth.unsafelyUnwrapped
        default: fifth.unsafelyUnwrapped
        }
    }
}
