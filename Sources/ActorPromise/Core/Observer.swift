/// Something waiting for a promise's outcome: a handler link, an adopting promise, an awaiter.
///
/// At settlement the outcome is stored in `input` and the observer is submitted to its context;
/// the context later calls the ``WorkItem`` runner, a function specialized for the concrete
/// observer type. All of this happens after the state actor's gate is left.
@usableFromInline
class Observer<Value: Sendable>: WorkItem, @unchecked Sendable {
    // Safety: `input` is written at settlement before the observer is submitted to its context,
    // and read by the runner after the context hands it back; see `WorkItem`.
    @usableFromInline @exclusivity(unchecked) final var input: ObserverInput<Value> = .none
    /// Where the observer runs. Dropped when the observer is handed over, so that work queued on
    /// a context does not keep that context alive (L1: a released context's queue may hold it) —
    /// except on the worker pool, which lives as long as the process anyway.
    @usableFromInline @exclusivity(unchecked) final var context: (any ExecutionContext)?
    /// Whether the context is `.inline`: such observers run at once and take no part in the
    /// ordered delivery of the others (R2).
    @usableFromInline final let runsInline: Bool
    /// Set on the last observer of a delivery when it runs alone on the pool: the promise whose
    /// delivery it ends, told once the observer has run (see ``endDelivery()``).
    ///
    /// Unmanaged, to keep retain traffic off the path every link takes. Safe: only a ``Link`` runs
    /// on the pool (the library's other observers are inline), and a link's child holds its
    /// parent — this very promise — strongly for as long as the link lives.
    @usableFromInline @exclusivity(unchecked) final var deliveredBy: Unmanaged<PromiseCore<Value>>?

    @inlinable
    init(context: any ExecutionContext, runner: @escaping @Sendable (WorkItem) -> Void) {
        self.context = context
        // An exact-type check: no load (and no retain) of the shared instance on this path.
        self.runsInline = type(of: context) == InlineContext.self
        super.init(runner: runner)
    }

    /// Tells the promise this observer was delivered by that its delivery is over, if this
    /// observer ended one. Every runner that can run on a non-inline context calls it last.
    @inlinable @inline(__always)
    final func endDelivery() {
        guard let source = deliveredBy else { return }
        deliveredBy = nil
        source._withUnsafeGuaranteedRef { $0.endDelivery() }
    }

    /// The context, taken out of the observer (once, when it is handed over).
    @inlinable @inline(__always)
    final func takeContext() -> any ExecutionContext {
        let context = self.context.unsafelyUnwrapped
        self.context = nil
        return context
    }

    /// Takes the stored outcome (once).
    @inlinable @inline(__always)
    final func takeInput() -> Outcome<Value>? {
        defer { input = .none }
        switch input {
        case .none: return nil
        case .success(let value): return .success(value)
        case .failure(let error): return .failure(error)
        }
    }
}

/// The outcome an observer was handed, or none: `Outcome<Value>?` in one enum.
///
/// One level of generic type instead of two (`Optional` of `Result`): every observer's `deinit`
/// runs unspecialized and looks up the metadata of its stored generic fields, and each level is
/// one look-up in the runtime's metadata cache (see `Benchmarks/README.md`, W1).
@usableFromInline
enum ObserverInput<Value: Sendable> {
    case none
    case success(Value)
    case failure(any Error)

    @inlinable @inline(__always)
    init(_ outcome: Outcome<Value>) {
        switch outcome {
        case .success(let value): self = .success(value)
        case .failure(let error): self = .failure(error)
        }
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
    mutating func append(_ observer: Observer<Value>) {
        if first == nil { first = observer } else { rest.append(observer) }
    }

    /// Every observer, in order.
    @inlinable
    var all: [Observer<Value>] {
        guard let first else { return [] }
        return [first] + rest
    }

    /// The promises these observers adopt into, if every observer is an adoption observer (and
    /// there is at least one); `nil` otherwise.
    @inlinable
    func adoptionTargets() -> [PromiseCore<Value>]? {
        guard let first else { return nil }
        var targets: [PromiseCore<Value>] = []
        for observer in CollectionOfOne(first) + rest {
            guard let adopter = observer as? AdoptObserver<Value> else { return nil }
            targets.append(adopter.target)
        }
        return targets
    }

    /// Whether any observer runs on a context other than `.inline`.
    @inlinable
    var needsOrderedDelivery: Bool {
        guard let first else { return false }
        if !first.runsInline { return true }
        return rest.contains { !$0.runsInline }
    }

    /// Delivers the outcome to every observer, in registration order (R2).
    ///
    /// Inline observers run at once (through the inline drain). Observers on other contexts are
    /// submitted in order, so a serial context runs them in order. Observers on the worker pool
    /// would run side by side if submitted one by one, so they go to the pool as one job that runs
    /// them one after another: a lone observer is submitted itself, several as a
    /// ``DeliveryGroup``. If `holdsDelivery`, `source`'s delivery ends once that pool job has run
    /// (or at once if there is none), and observers registered meanwhile are delivered then.
    @inlinable
    func deliver(_ outcome: Outcome<Value>, from source: PromiseCore<Value>, holdsDelivery: Bool) {
        guard let first else { return }
        if rest.isEmpty {
            first.input = ObserverInput(outcome)
            // A pool lives as long as the process, so a pool observer keeps its context reference
            // (no take-out traffic on the path every link takes).
            if holdsDelivery, let context = first.context, let pool = asWorkerPool(context) {
                first.deliveredBy = Unmanaged.passUnretained(source)
                pool.submit(first)
                return
            }
            first.takeContext().submit(first)
            if holdsDelivery { source.endDelivery() }
            return
        }
        var pool: WorkerPool?
        var pooled: [Observer<Value>] = []
        func hand(_ observer: Observer<Value>) {
            observer.input = ObserverInput(outcome)
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
@usableFromInline
final class DeliveryGroup<Value: Sendable>: WorkItem, @unchecked Sendable {
    // Safety: immutable after init; the observers follow `Observer`'s rule for `input`.
    @usableFromInline let observers: [Observer<Value>]
    @usableFromInline let source: PromiseCore<Value>?

    @usableFromInline
    init(_ observers: [Observer<Value>], source: PromiseCore<Value>?, runner: @escaping @Sendable (WorkItem) -> Void) {
        self.observers = observers
        self.source = source
        super.init(runner: runner)
    }

    @inlinable
    static func make(_ observers: [Observer<Value>], source: PromiseCore<Value>?) -> DeliveryGroup {
        DeliveryGroup(observers, source: source) { item in
            let group = unsafeDowncast(item, to: DeliveryGroup.self)
            for observer in group.observers { observer.run() }
            group.source?.endDelivery()
        }
    }
}

/// An observer that calls a closure with the outcome, through the inline drain loop. For
/// library-internal observers whose closure neither blocks nor waits (resuming a continuation).
@usableFromInline
final class CallbackObserver<Value: Sendable>: Observer<Value>, @unchecked Sendable {
    // Safety: `body` is immutable; see `Observer` for `input`.
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
            if let outcome = observer.takeInput() { observer.body(outcome) }
        }
    }
}

extension Promise {
    /// Calls `body` with the outcome on the settling thread, without deriving a promise. `body`
    /// must be quick and must not block. For the bridge module. The observer counts as a
    /// dependent that never stops waiting, so the promise never loses interest because of it.
    @inlinable
    package func observe(_ body: @escaping @Sendable (Outcome<Value>) -> Void) {
        core.send(.register(observer: CallbackObserver.make(body), child: nil, dependent: true))
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
}
