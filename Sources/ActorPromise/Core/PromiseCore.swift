import Synchronization

/// The state of one promise, isolated to an actor.
///
/// The actor is its own serial executor, and that executor is an ``AsyncGate``: synchronous entry
/// points (`then`, `fulfill`, `cancel`, …) enter the gate on the calling thread, mutate the state
/// with the actor's isolation, and leave — no `Task`, no thread hop. A call that finds the gate
/// taken parks its operation for the thread inside. In debug builds every operation proves its
/// isolation with `assumeIsolated`, and `checkIsolated` answers from a thread-local record of
/// which actor's gate this thread holds (never from thread identity), so the check is exact.
/// Observers are called only after the gate is left.
///
/// The state has two halves. `machine` (generic: the outcome and the observers) is actor-isolated
/// and reached from code specialized for `Value`. `tree` (non-generic: children, interest) is
/// reached from tree walks that do not know `Value`, and is kept outside the generic layout so
/// those walks run no generic code; it is guarded by the same gate.
///
/// The library names it ``PromiseCore``: `Machine` is always `PromiseStateMachine<Value>`. It is
/// a parameter of its own for the sake of `deinit`, which runs unspecialized: a field typed with
/// one of the class's own parameters is destroyed through that parameter's metadata, which the
/// object's class already holds, whereas a field typed `PromiseStateMachine<Value>` made every
/// release look that type's metadata up in the runtime's cache. Members that touch `machine` live
/// in extensions constrained to the one instantiation; the few protocol requirements that need it
/// reach it through ``typed``.
@usableFromInline
actor StateActor<Value: Sendable, Machine>: SerialExecutor, PromiseNode, TreeHolder {
    // Field order: every field of fixed size first (so the unspecialized `deinit` and `Runnable`
    // requirements reach them at fixed offsets); `tree` and `machine` each end in their flags'
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
    /// Guarded by the gate (this actor's executor); exclusive access is therefore guaranteed and
    /// the dynamic exclusivity check is switched off.
    @usableFromInline @exclusivity(unchecked) final nonisolated(unsafe) var tree: TreeState
    /// The value half. It belongs to the actor and is only touched while the gate — the actor's
    /// executor — is held; debug builds check that with `assumeIsolated` on every operation.
    /// It is declared `nonisolated(unsafe)` only so that release builds reach it without the
    /// runtime's isolation query and a function-type cast, which cost more than the operation
    /// itself. The dynamic exclusivity check is off for the same reason:
    /// the gate already guarantees exclusive access.
    @usableFromInline @exclusivity(unchecked) final nonisolated(unsafe) var machine: Machine
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
        machine: consuming Machine, settled: Bool, tracksInterest: Bool, parent: (any PromiseNode)?,
        link: consuming Link, observesCancellation: Bool, site: PromiseSite, rare: RareHandoff
    ) {
        let flags = TreeState.flags(
            isSettled: settled, tracksInterest: tracksInterest, observesCancellation: observesCancellation,
            runsInline: link.context.map { type(of: $0) == InlineContext.self } ?? false)
        self.status = Atomic(PromiseStatus(rawValue: flags & TreeState.Flag.published))
        self.parent = parent
        // A side object made already keeps the site for failure traces (release builds, R16).
        self.tree = TreeState(flags: flags, rare: rare.take())
        self.machine = machine
        self.link = link
        #if DEBUG
        self.site = site
        self.madeUnder = RuntimeLink.current()
        recordForTestRuntime()
        #endif
    }

    deinit {
        // A rejection no party took (R14): nobody ever registered as a dependent — every
        // observer does — so nobody handled it or passed it on. Non-generic state only; the
        // outcome is read on that rare path alone.
        if tree.isRejected, tree.dependents == 0 { reportUnhandled() }
        guard parent != nil else { return }
        var slot: AnyObject? = parent.take()
        // A parent that others still hold (a fan-out's root, say) is not freed by this release,
        // so no chain of deinitializers can follow: release it here, without the thread's
        // graveyard. Should the other holders let go meanwhile, the parent is freed inside this
        // deinit and buries its own parent in turn: one level of stack, not a chain.
        guard isKnownUniquelyReferenced(&slot) else { return }
        ThreadState.withCurrent { $0.bury(&slot) }
    }

    /// Reports this promise's rejection to ``PromiseDiagnostics``, unless it is a cancellation or
    /// an abandonment (R14). Out of line: `deinit` runs unspecialized.
    @inline(never)
    nonisolated func reportUnhandled() {
        guard case .failure(let error)? = typed.machine.outcome, !error.isCancellation,
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

    /// Jobs of async code isolated to this actor run on the global pool, each inside the gate.
    @usableFromInline
    nonisolated func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        WorkerPool.global.submit(ClosureWorkItem { [self] in self.runJob(job) })
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

    // MARK: Tree operations (no generic code: reached through `any PromiseNode`)

    @usableFromInline
    nonisolated func performTree(_ op: TreeOp) -> TreeStep? {
        guard gate.tryEnter() || gate.enterOrPark(ParkedTreeOp(self, op)) else { return nil }
        let outer = recordIsolation()
        let step = applyTreeHoldingGate(op)
        gate.leave(restoring: outer)
        return step
    }

    @usableFromInline
    nonisolated func performChildDone(_ child: borrowing any PromiseNode) -> TreeStep? {
        guard gate.tryEnter() || gate.enterOrPark(ParkedTreeOp(self, .childDone(copy child))) else { return nil }
        let outer = recordIsolation()
        let step = tree.childDone(child)
        gate.leave(restoring: outer)
        return step
    }

    nonisolated func applyTreeHoldingGate(_ op: TreeOp) -> TreeStep {
        tree.apply(op)
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

    nonisolated func runJobHoldingGate(_ job: UnownedJob) {
        job.runSynchronously(on: unownedExecutor)
    }

    /// Runs a job of async code isolated to this actor inside the gate, or parks it for the
    /// thread inside.
    nonisolated func runJob(_ job: UnownedJob) {
        guard gate.tryEnter() || gate.enterOrPark(ParkedJob(self, job)) else { return }
        let outer = recordIsolation()
        runJobHoldingGate(job)
        gate.leave(restoring: outer)
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
        self.init(
            machine: machine, settled: settled, tracksInterest: tracksInterest, parent: parent, link: link,
            observesCancellation: observesCancellation, site: site, rare: rare)
    }

    // MARK: Value operations (specialized at the call site)

    /// Applies `op` to the state. Only called with the gate held, which is what makes this
    /// thread the actor's executor for the moment.
    @inlinable @inline(__always)
    nonisolated func applyHoldingGate(_ op: consuming PromiseOp<Value>) -> PromiseEffects<Value> {
        #if DEBUG
        // Debug builds prove the isolation on every operation: the runtime asks
        // `isIsolatingCurrentContext`, which answers from the thread's gate record.
        assumeIsolated { _ in }
        #endif
        var hooks = CoreHooks(core: self)
        let effects = machine.apply(op, tree: &tree, hooks: &hooks)
        if effects.status != status.load(ordering: .relaxed) {
            schedulingPoint("status.store")
            status.store(effects.status, ordering: .releasing)
        }
        return effects
    }

    /// Starts the trace of a promise made rejected at `site` (R16), before it is shared. Out of
    /// line: traces are on.
    @usableFromInline
    nonisolated func traceMadeRejected(at site: PromiseSite, cause: TraceCause) {
        tree.recordTrace(TraceNode(cause: cause, site: site, isCancellation: false))
    }

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
        let outer = recordIsolation()
        let effects = applyHoldingGate(op)
        gate.leave(restoring: outer)
        return effects
    }

    /// Applies `op` and carries out its effects.
    @inlinable
    nonisolated func send(_ op: consuming PromiseOp<Value>) {
        if let effects = perform(op) { carryOut(effects) }
    }

    /// Ends a delivery of observers (R2). In the common case — nobody registered an observer
    /// meanwhile — release builds clear the flag under the gate directly, without building and
    /// carrying out effects; otherwise this is `send(.endDelivery)`.
    @inlinable
    nonisolated func endDeliveryNow() {
        #if !DEBUG
        if gate.tryEnter() {
            // A mutating call works on the state in place (reading a field would copy it all).
            let quiet = machine.endQuietDelivery()
            gate.leave(restoring: nil)
            if quiet { return }
        }
        #endif
        send(.endDelivery)
    }

    /// The outcome, once settled. Safe without the gate: the outcome is written once, before the
    /// settled bit is published with release ordering, and never changes afterwards.
    @inlinable
    nonisolated var settledOutcome: Outcome<Value>? {
        guard isSettled else { return nil }
        return machine.outcome
    }
}

// Snapshots and the requirements of the tree's protocols: no value-typed state, or reached
// through `typed`.
extension StateActor {
    /// This actor as the one instantiation there is: `Machine` is `PromiseStateMachine<Value>`
    /// (see ``PromiseCore``). Free in specialized code: no check, no conversion. (In an
    /// extension, so that calls are static: a member of the actor's body goes through its vtable,
    /// unspecialized, and returned a retained reference.)
    @inlinable @inline(__always)
    nonisolated var typed: PromiseCore<Value> { unsafeDowncast(self, to: PromiseCore<Value>.self) }

    /// Debug builds record, per thread, which state actor's gate the thread holds, so that
    /// `checkIsolated` is exact. Release builds make no isolation query, so they skip the record.
    /// (In an extension: from the actor's body it was a call through the vtable on every operation.)
    @inlinable @inline(__always)
    nonisolated func recordIsolation() -> UnsafeRawPointer? {
        #if DEBUG
        return enterIsolation(identity)
        #else
        return nil
        #endif
    }

    // MARK: Snapshots

    @inlinable nonisolated var isSettled: Bool {
        schedulingPoint("status.settled")
        return status.load(ordering: .acquiring).contains(.settled)
    }
    /// Whether the promise cancels itself once every dependent was cancelled (R7, B7). Fixed at
    /// creation; derived promises take it from their parent.
    @inlinable nonisolated var tracksInterest: Bool { status.load(ordering: .relaxed).contains(.tracksInterest) }
    /// Whether this derived promise's handler observes errors, and so runs even when the promise
    /// was cancelled while it waited (R5b); a value handler is skipped then. Fixed at creation.
    @inlinable nonisolated var observesCancellation: Bool {
        status.load(ordering: .relaxed).contains(.observesCancellation)
    }
    /// Whether this derived promise's handler runs on `.inline` (R2: such handlers take no part
    /// in ordered delivery). Fixed at creation.
    @inlinable nonisolated var runsInline: Bool { status.load(ordering: .relaxed).contains(.runsInline) }
    @usableFromInline nonisolated var isPending: Bool { !isSettled }
    @usableFromInline nonisolated var isCancelled: Bool {
        schedulingPoint("status.cancelled")
        return status.load(ordering: .acquiring).contains(.cancelled)
    }
    /// Whether the promise was cancelled while pending. Final once true, so safe to act on
    /// without the gate.
    @usableFromInline nonisolated var wasCancelledWhilePending: Bool {
        schedulingPoint("status.cancelledWhilePending")
        return status.load(ordering: .acquiring).contains(.cancelledWhilePending)
    }
    @usableFromInline nonisolated var parentNode: (any PromiseNode)? { parent }
    /// Safe with ``adoptionLock`` held: every write of the adoptee holds it too.
    /// Reads only the `rare` field of the tree (and the box's adoptee), never the whole tree, which
    /// the gate holder may be changing meanwhile. That is sound because the gate holder changes
    /// the tree in place — `tree` is a stored property of this final class, so a mutating call
    /// works on its address and never copies the struct out and back — and so touches `rare`'s
    /// bytes only when it assigns `rare` itself, which it does under the lock.
    @usableFromInline nonisolated var adopteeUnderAdoptionLock: (any PromiseNode)? { tree.rare?.adoptee }

    /// The path of this promise's failure (R16), read under ``adoptionLock``, as the adoptee is.
    @usableFromInline nonisolated var traceNode: TraceNode? {
        adoptionLock.withLockUnscheduled { tree.rare?.trace }
    }

    /// Where this promise was made, and by which operation (see ``PromiseNode/traceSite``).
    @usableFromInline nonisolated var traceSite: PromiseSite {
        #if DEBUG
        site
        #else
        adoptionLock.withLockUnscheduled { tree.rare?.site } ?? PromiseSite()
        #endif
    }

    @usableFromInline
    nonisolated var anyOutcome: Outcome<any Sendable>? {
        typed.settledOutcome.map { $0.map { $0 as any Sendable } }
    }

    /// Ends a delivery of observers (R2); see ``endDeliveryNow()``.
    @inlinable
    nonisolated func endDelivery() { typed.endDeliveryNow() }

    /// Cancels this promise as one step of a cancel walk (see `forwardCancel`).
    @usableFromInline
    nonisolated func cancel(
        reason: (any Error)?, origin: TraceCause?, forwardingInto work: inout [any PromiseNode], then effects: inout [() -> Void]
    ) {
        typed.cancelStep(reason: reason, origin: origin, forwardingInto: &work, then: &effects)
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
        unsafeDowncast(adoptee as AnyObject, to: PromiseCore<V>.self).settledOutcome
    }

    /// The adoptee's failure trace, carried on through this promise (R16). Out of line: traces
    /// are on.
    @usableFromInline
    func traceFollowing(_ adoptee: any PromiseNode) -> TraceNode? {
        adoptee.traceNode?.passing(through: core.traceSite)
    }
}

// MARK: - Entry points

// The core's entry points: what the rest of the library asks of a promise's state, by name.
// Operators, combinators, the resolver and the bridge call these; only the core builds a
// `PromiseOp` and `send`s it. Parameters are `consuming`, as the operation's payloads are: taking
// them borrowed would cost a retain and a release per call.
extension StateActor where Machine == PromiseStateMachine<Value> {
    /// Creates a derived promise: a pending child whose parent is this promise, with `link` (whose
    /// task-local values the operator captured, R15), registered as this promise's observer and as
    /// a dependent child (R2, R5, R7).
    ///
    /// - Parameters:
    ///   - tracksInterest: The child's interest rule; `nil` takes this promise's.
    ///   - observesCancellation: Whether the handler observes errors (see
    ///     ``PromiseCore/observesCancellation``).
    @inlinable @inline(__always)
    nonisolated func derive<Out: Sendable>(
        tracksInterest: Bool?, observesCancellation: Bool, site: PromiseSite, rare: RareHandoff,
        link: consuming sending Link
    ) -> PromiseCore<Out> {
        let child = PromiseCore<Out>(
            PromiseStateMachine(), tracksInterest: tracksInterest ?? self.tracksInterest, parent: self,
            link: link, observesCancellation: observesCancellation, site: site, rare: rare)
        send(.derive(child))
        return child
    }

    /// Registers `observer`, which counts as a dependent that never stops waiting: an awaiter
    /// (until its task is cancelled), a combinator's input observer, a blocking `wait`, an
    /// adopting promise, a bridge callback.
    @inlinable
    nonisolated func observe(_ observer: consuming any OutcomeObserver) {
        send(.observe(observer))
    }

    /// Adds a dependent with no observer: a party that takes every outcome without being called
    /// (R14), or one that is about to walk away (``refuse()``).
    @inlinable
    nonisolated func addDependent() {
        send(.addDependent)
    }

    /// Settles the promise; ignored if it is settled already (R1).
    ///
    /// - Parameter cause: How an error entered here, for its trace when it is not one this
    ///   thread's handler was handed (which is carried on instead); read only while failure
    ///   traces are on (R16).
    @inlinable
    nonisolated func settle(_ outcome: consuming Outcome<Value>, cause: TraceCause = .settled) {
        // The tag first: a fulfilment, whose tag is known where it is made, pays nothing.
        if case .failure(let error) = copy outcome, tracesAreOn { return reject(error, cause: cause) }
        send(.settle(outcome))
    }

    /// Rejects the promise with `error` and its trace (R16). Out of line: traces are on.
    /// (Specialized where it is called, but not inlined there: the traced path stays apart from
    /// the common one.)
    @inlinable @inline(never)
    nonisolated func reject(_ error: any Error, cause: TraceCause) {
        send(.reject(error, trace: trace(of: error, cause: cause)))
    }

    /// Settles the promise with `outcome`; a failure carries `trace` — the trace of the promise
    /// it came from — on through this promise, named by `site` (R16): for a handler that passes
    /// its parent's rejection on, and a combinator that hands an input's rejection to its result
    /// (`zip input 2 of 3`, `retry attempt 3`). Without a trace, a failure's trace starts here.
    /// Called while traces are on; specialized where it is called, not inlined there.
    @inlinable @inline(never)
    nonisolated func settle(_ outcome: Outcome<Value>, carryingOn trace: TraceNode?, as site: PromiseSite) {
        guard case .failure(let error) = outcome else { return send(.settle(outcome)) }
        send(.reject(error, trace: trace?.passing(through: site) ?? self.trace(of: error, cause: .settled)))
    }

    /// The trace of `error` as it reaches this promise: the trace of the failure this thread's
    /// handler was handed, carried on, if it is that error; else a new trace that starts here.
    @usableFromInline
    nonisolated func trace(of error: any Error, cause: TraceCause) -> TraceNode {
        let site = traceSite
        if let handed = HandledFailure.current, ErrorIdentity(handed.error) == ErrorIdentity(error) {
            return handed.trace.passing(through: site)
        }
        return TraceNode(cause: cause, site: site, isCancellation: error.isCancellation)
    }

    /// Rejects the promise as ``PromiseError/Code/abandoned``, naming its site (debug builds), and
    /// reports it — unless it has settled or follows another promise by the time the operation
    /// reaches the gate (R8). Called by a resolver's `deinit`.
    @usableFromInline
    nonisolated func abandon() {
        let trace = tracesAreOn ? TraceNode(cause: .abandoned, site: traceSite, isCancellation: false) : nil
        send(.abandon(PromiseError(.abandoned, site: siteText), trace: trace))
    }

    /// Registers `handler` to run once if the promise is cancelled while pending (R6).
    @inlinable
    nonisolated func addCancelHandler(_ handler: consuming @escaping @Sendable () -> Void) {
        send(.onCancel(handler))
    }
}

// MARK: - Carrying out what a transition decided, and the tree walks

/// Carrying out effects, and the tree walks. Every walk is a loop over an explicit work list, so
/// trees and chains of any depth are handled in constant stack.
extension StateActor where Machine == PromiseStateMachine<Value> {
    /// Carries out what a transition decided, with the gate already left.
    @inlinable
    nonisolated func carryOut(_ effects: consuming PromiseEffects<Value>) {
        // The lazy body waits in the promise's hook store (see `CoreHooks`); the rare effects
        // (cancellation, adoption) share one box: the common path tests a bit and the box once.
        if effects.runsLazyBody { runLazyRunner() }
        if effects.reportsAbandonment { reportAbandoned() }
        let rare = effects.rare
        if let rare {
            if let cancellation = rare.cancellation {
                if let handler = cancellation.handler { handler() }
                if !cancellation.children.isEmpty { forwardCancel(to: cancellation.children, reason: cancellation.reason) }
            }
        }
        // Moved out, not copied (a retain and a release per observer), and the closure
        // captures only what it needs: capturing `effects` would copy all of it.
        var observers = effects.observers.take()
        if !observers.isEmpty {
            let holdsDelivery = effects.holdsDelivery
            if holdsDelivery, observers.count == 1 {
                // One observer, off this thread (a delivery is held only for those): nothing runs
                // inline here, so no drain loop is needed.
                observers.deliver(from: self, holdsDelivery: true)
            } else {
                withInlineBatch { observers.deliver(from: self, holdsDelivery: holdsDelivery) }
            }
        }
        if let rare {
            if let adoption = rare.adoption { carryOut(adoption) }
            if let cancellation = rare.cancellation {
                if cancellation.parentLostInterest, let parent { loseInterest(parent, cause: lostInterestCause) }
                if let adoptee = cancellation.adopteeLostInterest { loseInterest(adoptee, cause: lostInterestCause) }
            }
        }
        if effects.reportDone { reportDone() }
        if effects.reattach { reattachUpward(from: self) }
    }

    /// Runs the lazy link's runner, written with the promise where `Resolver` is known: it takes
    /// the body from the hook store and runs it with a fresh resolver (R10). Out of line: rare,
    /// and kept out of every transition's inlined `carryOut`.
    @usableFromInline @inline(never)
    nonisolated func runLazyRunner() {
        if let runner = link.runner.take() { runner(self) }
    }

    /// Carries out what adoption decided: observing the source, or refusing it.
    ///
    /// The follower is its own observer of the source, as a derived promise is of its parent: its
    /// handler has run (or it has none), so its link is free; the source hands it over to `.inline`
    /// and its run takes the source's outcome (``PromiseOp/adopteeSettled``). Inlinable, so that
    /// the runner is made where `Value` is known: it then captures nothing and allocates nothing.
    @inlinable
    nonisolated func carryOut(_ adoption: AdoptionEffects<Value>) {
        if let source = adoption.subscribeTo {
            // Safety: only the thread whose `follow` succeeded gets here, once; nothing else
            // touches the link of a promise whose handler has run, or of one without a handler.
            link.context = InlineContext.shared
            link.runner = { follower in Link.promise(follower, as: Value.self).send(.adopteeSettled) }
            source.observe(self)
        }
        if let unwanted = adoption.unwanted { unwanted.refuse() }
    }

    /// Tells this promise that a promise which would have followed it was cancelled first: it
    /// gains and at once loses a dependent, so it cancels itself (and its work) unless somebody
    /// else waits for it (R7, B7).
    @usableFromInline
    nonisolated func refuse() {
        addDependent()
        loseInterest(self, cause: lostInterestCause)
    }

    /// Cancels this promise and, through an explicit work list, every descendant (R5).
    ///
    /// - Parameter origin: Where the cancellation began, for its trace (R16).
    @usableFromInline
    nonisolated func cancel(reason: (any Error)?, origin: TraceCause? = nil) {
        cancelTree(self, reason: reason, origin: origin)
    }

    /// One step of a cancel walk: cancels this promise, queues its children on `work` and its
    /// effects on `effects`.
    @usableFromInline
    nonisolated func cancelStep(
        reason: (any Error)?, origin: TraceCause?, forwardingInto work: inout [any PromiseNode], then effects: inout [() -> Void]
    ) {
        // A handler that observes outcomes reports its parent's settled outcome when the cancel
        // comes after it (R1, B5): read before the cancel, so either order is a true one.
        let afterSource = observesCancellation && parent.map { !$0.isPending } ?? false
        let op: PromiseOp<Value> = if tracesAreOn {
            .tracedCancel(TracedCancel(reason: reason, afterSource: afterSource, trace: cancellationTrace(origin: origin)))
        } else {
            .cancel(reason: reason, afterSource: afterSource)
        }
        guard var cancelled = perform(op) else { return }
        if let cancellation = cancelled.cancellation, !cancellation.children.isEmpty {
            work.append(contentsOf: cancellation.children)
            cancelled.cancellation = cancellation.withoutChildren()
        }
        effects.append { self.carryOut(cancelled) }
    }

    /// The trace of a cancellation reaching this promise (R16): it begins here (`origin`), or it
    /// came from the parent, whose own cancel ran first in the walk.
    @usableFromInline
    nonisolated func cancellationTrace(origin: TraceCause?) -> TraceNode {
        let site = traceSite
        if let origin { return TraceNode(cause: origin, site: site, isCancellation: true) }
        if let parent, let inherited = parent.traceNode, inherited.isCancellation {
            return inherited.passing(through: site)
        }
        return TraceNode(cause: .cancelled(PromiseSite()), site: site, isCancellation: true)
    }

    /// Hands the abandonment to ``PromiseDiagnostics`` (R8), before the observers learn of it.
    /// Out of line: it is rare.
    @usableFromInline
    nonisolated func reportAbandoned() {
        if case .failure(let error)? = settledOutcome, let error = error as? PromiseError, error.code == .abandoned {
            PromiseDiagnostics.reportAbandoned(error)
        }
    }
}

extension StateActor {
    /// This promise as the dependent whose cancellation made another lose interest (R16); `nil`
    /// while traces are off. Out of line: it is read on cancellation paths only, which it must
    /// not make too long to inline.
    @usableFromInline
    nonisolated var lostInterestCause: TraceCause? {
        tracesAreOn ? .lostInterest(traceSite) : nil
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
}

/// Cancels `node` and every descendant, with a work list instead of recursion.
///
/// - Parameter origin: Where the cancellation began, for its trace while traces are on (R16).
@usableFromInline
func cancelTree(_ node: any PromiseNode, reason: (any Error)?, origin: TraceCause? = nil) {
    forwardCancel(to: [node], reason: reason, origin: origin)
}

/// Cancels each of `nodes` and every descendant, with a work list instead of recursion.
///
/// Two phases: first every promise of the subtree is cancelled, then the effects are carried out
/// (observers notified, `onCancel` handlers run). So no handler that observes the cancellation
/// runs while part of the branch below it is still pending, and none can settle a promise that
/// the walk is about to cancel: a cancelled branch stays cancelled whatever its handlers return
/// (R5b).
///
/// Promises that lose their last interested dependent while the effects are carried out (the
/// promise a cancelled one followed, and the one that promise followed, down a recursive loop of
/// any depth) are cancelled by the outermost walk on this thread once its branch is done, in
/// the order they lost it (see ``loseInterest(_:)``): the stack does not grow with the chain.
@usableFromInline
func forwardCancel(to nodes: [any PromiseNode], reason: (any Error)?, origin: TraceCause? = nil) {
    let thread = ThreadState.current
    let isOutermost = !thread.isWalkingCancels
    thread.isWalkingCancels = true
    cancelBranch(nodes, reason: reason, origin: origin)
    guard isOutermost else { return }
    var next = 0
    while next < thread.cancelBacklog.count {
        let entry = thread.cancelBacklog[next]
        next += 1
        if let node = entry as? any PromiseNode {
            cancelBranch([node], reason: nil, origin: nil)
        } else {
            let traced = entry as! LostInterest
            cancelBranch([traced.node], reason: nil, origin: traced.cause)
        }
    }
    thread.cancelBacklog.removeAll()
    thread.isWalkingCancels = false
}

/// The two phases of ``forwardCancel(to:reason:)`` for one set of nodes.
private func cancelBranch(_ nodes: [any PromiseNode], reason: (any Error)?, origin: TraceCause?) {
    var work: [any PromiseNode] = []
    var effects: [() -> Void] = []
    // The promises the walk starts from take `origin`; their descendants carry their parent's
    // trace on (R16).
    for node in nodes.reversed() {
        node.cancel(reason: reason, origin: origin, forwardingInto: &work, then: &effects)
        while let next = work.popLast() { next.cancel(reason: reason, origin: nil, forwardingInto: &work, then: &effects) }
    }
    for carryOut in effects { carryOut() }
}

/// A promise a cancel walk must cancel next, with where its cancellation began (R16): queued
/// on the walk's backlog instead of the bare promise while traces are on.
private final class LostInterest {
    let node: any PromiseNode
    let cause: TraceCause

    init(_ node: any PromiseNode, cause: TraceCause) {
        self.node = node
        self.cause = cause
    }
}

/// Tells `node` that one of its dependents was cancelled; cancels it if that was its last
/// interested dependent and it tracks interest (R7). Inside a cancel walk the cancel joins that
/// walk's backlog (see ``forwardCancel(to:reason:)``).
///
/// - Parameter cause: Where the cancellation began, for its trace while traces are on (R16): the
///   dependent that let go.
@usableFromInline
func loseInterest(_ node: any PromiseNode, cause: TraceCause?) {
    guard node.performTree(.dependentCancelled) == .cancelSelf else { return }
    let thread = ThreadState.current
    if thread.isWalkingCancels {
        if let cause {
            thread.cancelBacklog.append(LostInterest(node, cause: cause))
        } else {
            thread.cancelBacklog.append(node)
        }
    } else {
        cancelTree(node, reason: nil, origin: cause)
    }
}

/// Reports `node` done to its parent, and so on up while parents become done in turn.
@usableFromInline
func reportDoneUpward(from node: any PromiseNode) {
    var child = node
    while let parent = child.parentNode, parent.performChildDone(child) == .reportDone {
        child = parent
    }
}

/// Registers `node` with its parent again after it had been done, and so on up.
@usableFromInline
func reattachUpward(from node: any PromiseNode) {
    var child = node
    while let parent = child.parentNode, parent.performTree(.reattach(child)) == .reattachUpward {
        child = parent
    }
}
