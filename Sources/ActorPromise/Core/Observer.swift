/// Something waiting for a promise's outcome: a handler link, an adopting promise, an awaiter.
///
/// At settlement the observer is given its ``source`` — the settled promise — and submitted to
/// its context; the context later calls the ``WorkItem`` runner, a function specialized for the
/// concrete observer type, which reads the outcome from the source. All of this happens after
/// the state actor's gate is left.
///
/// The outcome is not copied into the observer: an observer then stores nothing whose layout
/// depends on `Value`, so its `deinit`, which always runs unspecialized, needs no generic-metadata
/// look-up (about 320 instructions a handler; see `Benchmarks/README.md`), and it is 16 bytes
/// smaller.
@usableFromInline
class Observer<Value: Sendable>: WorkItem, @unchecked Sendable {
    // Safety (`@unchecked Sendable`): `source` and `endsDelivery` are written at settlement,
    // before the observer is submitted to its context, and read by the runner after the context
    // hands it back (see `WorkItem`); `context` is written at creation and taken out once, at the
    // same submission. The outcome read through `source` was written once, under the source's
    // gate, before the settled bit was published, and never changes.

    /// The promise that delivered its outcome to this observer; `nil` until then.
    ///
    /// Retained, except for a ``Link`` (`retainsSource == false`): a link's child holds its parent
    /// — the source — strongly for as long as the link lives, so a link keeps retain traffic off
    /// the path every link takes.
    @usableFromInline @exclusivity(unchecked) final var source: Unmanaged<PromiseCore<Value>>?
    /// Where the observer runs. Dropped when the observer is handed over, so that work queued on
    /// a context does not keep that context alive (L1: a released context's queue may hold it) —
    /// except on the worker pool, which lives as long as the process anyway.
    @usableFromInline @exclusivity(unchecked) final var context: (any ExecutionContext)?
    /// Whether the context is `.inline`: such observers run at once and take no part in the
    /// ordered delivery of the others (R2).
    @usableFromInline final let runsInline: Bool
    /// Whether ``source`` is retained (see there).
    @usableFromInline final let retainsSource: Bool
    /// Set on the last observer of a delivery when it runs alone on the pool: once it has run, it
    /// tells ``source`` that its delivery is over (see ``endDelivery()``).
    @usableFromInline @exclusivity(unchecked) final var endsDelivery = false

    @inlinable
    init(context: any ExecutionContext, retainsSource: Bool = true, runner: @escaping @Sendable (WorkItem) -> Void) {
        self.context = context
        // An exact-type check: no load (and no retain) of the shared instance on this path.
        self.runsInline = type(of: context) == InlineContext.self
        self.retainsSource = retainsSource
        super.init(runner: runner)
    }

    deinit {
        detachSource()
    }

    /// Records the promise whose outcome this observer is handed (once, at delivery).
    @inlinable @inline(__always)
    final func attach(to source: PromiseCore<Value>) {
        self.source = retainsSource ? .passRetained(source) : .passUnretained(source)
    }

    /// Tells the promise this observer was delivered by that its delivery is over, if this
    /// observer ended one. Every runner that can run on a non-inline context calls it last.
    @inlinable @inline(__always)
    final func endDelivery() {
        guard endsDelivery else { return }
        endsDelivery = false
        // `endsDelivery` is set only at delivery, right after `attach(to:)`, and `source` is
        // cleared only after this call or on paths that never run the observer (discard, deinit):
        // it is set here.
        source.unsafelyUnwrapped._withUnsafeGuaranteedRef { $0.endDelivery() }
    }

    /// The context, taken out of the observer (once, when it is handed over).
    @inlinable @inline(__always)
    final func takeContext() -> any ExecutionContext {
        let context = self.context.unsafelyUnwrapped
        self.context = nil
        return context
    }

    /// The outcome this observer was handed, or `nil` if it was never delivered (or was
    /// discarded). Read in place from the settled source.
    @inlinable @inline(__always)
    final func receivedOutcome() -> Outcome<Value>? {
        guard let source else { return nil }
        return source._withUnsafeGuaranteedRef { $0.machine.outcome }
    }

    /// Forgets the source without reading its outcome: a context dropped or cancelled this
    /// observer, or it is being freed.
    @inlinable
    final func detachSource() {
        if retainsSource, let source { source.release() }
        source = nil
    }
}

/// The observers of one promise, in registration order. The first is stored inline, so a promise
/// with one handler allocates no array.
@usableFromInline
struct ObserverList<Value: Sendable>: Sendable {
    @usableFromInline var first: Observer<Value>?
    @usableFromInline var rest: [Observer<Value>] = []

    @inlinable init() {}

    @inlinable var isEmpty: Bool { first == nil }

    @inlinable
    mutating func append(_ observer: consuming Observer<Value>) {
        if first == nil { first = observer } else { rest.append(observer) }
    }

    /// Whether any observer runs on a context other than `.inline`.
    @inlinable
    var needsOrderedDelivery: Bool {
        guard let first else { return false }
        if !first.runsInline { return true }
        return rest.contains { !$0.runsInline }
    }

    /// Delivers the outcome of `source`, which has settled, to every observer, in registration
    /// order (R2).
    ///
    /// Inline observers run at once (through the inline drain). Observers on other contexts are
    /// submitted in order, so a serial context runs them in order. Observers on the worker pool
    /// would run side by side if submitted one by one, so they go to the pool as one job that runs
    /// them one after another: a lone observer is submitted itself, several as a
    /// ``DeliveryGroup``. If `holdsDelivery`, `source`'s delivery ends once that pool job has run
    /// (or at once if there is none), and observers registered meanwhile are delivered then.
    @inlinable
    func deliver(from source: PromiseCore<Value>, holdsDelivery: Bool) {
        guard let first else { return }
        if rest.isEmpty {
            first.attach(to: source)
            // A pool lives as long as the process, so a pool observer keeps its context reference
            // (no take-out traffic on the path every link takes).
            if holdsDelivery, let context = first.context, let pool = asWorkerPool(context) {
                first.endsDelivery = true
                pool.submit(first)
                return
            }
            first.takeContext().submit(first)
            if holdsDelivery { source.endDelivery() }
            return
        }
        var pool: WorkerPool?
        var pooled = WorkQueue()
        func hand(_ observer: Observer<Value>) {
            observer.attach(to: source)
            let context = observer.takeContext()
            if let candidate = asWorkerPool(context), pool == nil || pool === candidate {
                pool = candidate
                pooled.append(observer)
            } else {
                context.submit(observer)
            }
        }
        hand(first)
        for observer in rest { hand(observer) }
        if let pool {
            pool.submit(DeliveryGroup.make(pooled, source: holdsDelivery ? source : nil))
        } else if holdsDelivery {
            source.endDelivery()
        }
    }
}

/// `context` as a worker pool, by an exact type check (`WorkerPool` is final): much cheaper than
/// a dynamic cast on the path every link takes.
@inlinable @inline(__always)
func asWorkerPool(_ context: any ExecutionContext) -> WorkerPool? {
    type(of: context) == WorkerPool.self ? unsafeDowncast(context, to: WorkerPool.self) : nil
}

/// The pool observers of one delivery, run one after another in one pool job (R2).
///
/// Each observer is released as soon as it has run, so the objects of a large fan-out are freed
/// by the thread that runs it while it runs, not in one burst after the last handler — when the
/// thread that the last handler woke is already allocating again, and the two would contend for
/// the allocator (see the hand-off findings in `Benchmarks/README.md`).
@usableFromInline
final class DeliveryGroup<Value: Sendable>: WorkItem, @unchecked Sendable {
    // Safety: `observers` is filled before the group is submitted and emptied by its runner, which
    // the pool calls once, after handing the group over; `source` is immutable. The observers
    // follow `Observer`'s rule for `source`.
    @usableFromInline @exclusivity(unchecked) var observers: WorkQueue
    @usableFromInline let source: PromiseCore<Value>?

    @usableFromInline
    init(_ observers: consuming WorkQueue, source: PromiseCore<Value>?, runner: @escaping @Sendable (WorkItem) -> Void) {
        self.observers = observers
        self.source = source
        super.init(runner: runner)
    }

    @inlinable
    static func make(_ observers: consuming WorkQueue, source: PromiseCore<Value>?) -> DeliveryGroup {
        DeliveryGroup(observers, source: source) { item in
            let group = unsafeDowncast(item, to: DeliveryGroup.self)
            while let observer = group.observers.popFirst() { observer.run() }
            group.source?.endDelivery()
        }
    }
}

/// An observer that calls a closure with the outcome, through the inline drain loop. For
/// library-internal observers whose closure neither blocks nor waits (resuming a continuation).
@usableFromInline
final class CallbackObserver<Value: Sendable>: Observer<Value>, @unchecked Sendable {
    // Safety: `body` is immutable; see `Observer` for `source`.
    @usableFromInline let body: @Sendable (Outcome<Value>) -> Void

    @usableFromInline
    init(_ body: @escaping @Sendable (Outcome<Value>) -> Void, runner: @escaping @Sendable (WorkItem) -> Void) {
        self.body = body
        super.init(context: InlineContext.shared, runner: runner)
    }

    @inlinable
    static func make(_ body: @escaping @Sendable (Outcome<Value>) -> Void) -> CallbackObserver {
        CallbackObserver(body) { item in
            let observer = unsafeDowncast(item, to: CallbackObserver.self)
            if let outcome = observer.receivedOutcome() { observer.body(outcome) }
        }
    }
}

extension Promise {
    /// Calls `body` with the outcome on the settling thread, without deriving a promise. `body`
    /// must be quick and must not block. For the bridge module. The observer counts as a
    /// dependent that never stops waiting, so the promise never loses interest because of it.
    @inlinable
    package func observe(_ body: @escaping @Sendable (Outcome<Value>) -> Void) {
        core.observe(CallbackObserver.make(body))
    }

    /// A child that settles exactly as this promise does, so that cancelling it cancels only
    /// that branch.
    @inlinable
    package func branch() -> Promise<Value> {
        derive(on: .inline) { .settle($0) }
    }

    /// The outcome if settled, read without the gate. For the bridge module.
    @inlinable
    package var settledOutcome: Outcome<Value>? { core.settledOutcome }

    /// The outcome if settled, read without the gate by a party that takes it — an awaiter or a
    /// blocking `wait` — so a rejection read this way counts as handled (R14). Only a rejection
    /// pays for that.
    @inlinable
    package var takenSettledOutcome: Outcome<Value>? {
        guard let outcome = core.settledOutcome else { return nil }
        if case .failure = outcome { takesEveryOutcome() }
        return outcome
    }
}

extension Promise {
    /// Marks this promise as observed by a party that takes every outcome — a callback API at the
    /// end of a chain (`whenComplete`) — so that its rejection is not reported as unhandled (R14).
    /// It counts as a dependent that never stops waiting, like ``observe(_:)``.
    @inlinable
    package func takesEveryOutcome() {
        core.addDependent()
    }
}
