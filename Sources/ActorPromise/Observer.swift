/// Something waiting for a promise's outcome: a handler link, an adopting promise, an awaiter.
///
/// At settlement the outcome is stored in `input` and the observer is submitted to its context;
/// the context later calls the ``WorkItem`` runner, a function specialized for the concrete
/// observer type. All of this happens after the state actor's gate is left.
@usableFromInline
class Observer<Value: Sendable>: WorkItem, @unchecked Sendable {
    // Safety: `input` is written at settlement before the observer is submitted to its context,
    // and read by the runner after the context hands it back; see `WorkItem`.
    @usableFromInline @exclusivity(unchecked) final var input: Outcome<Value>?
    /// Where the observer runs. Dropped when the observer is handed over, so that work queued on
    /// a context does not keep that context alive (L1: a released context's queue may hold it).
    @usableFromInline @exclusivity(unchecked) final var context: (any ExecutionContext)?

    @usableFromInline
    init(context: any ExecutionContext, runner: @escaping @Sendable (WorkItem) -> Void) {
        self.context = context
        super.init(runner: runner)
    }

    /// Stores the outcome and hands the observer to its context.
    @inlinable @inline(__always)
    final func receive(_ outcome: Outcome<Value>) {
        input = outcome
        takeContext().submit(self)
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
        defer { input = nil }
        return input
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

    /// Hands every observer the outcome, in registration order.
    @inlinable
    func notify(_ outcome: Outcome<Value>) {
        guard let first else { return }
        if rest.isEmpty {
            first.receive(outcome)
            return
        }
        // A fan-out: batch consecutive handlers for the same pool, taking its lock once.
        var batch = SubmissionBatch()
        first.input = outcome
        batch.add(first, to: first.takeContext())
        for observer in rest {
            observer.input = outcome
            batch.add(observer, to: observer.takeContext())
        }
        batch.flush()
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
    /// must be quick and must not block. For the bridge module.
    @inlinable
    package func observe(_ body: @escaping @Sendable (Outcome<Value>) -> Void) {
        core.send(.register(observer: CallbackObserver.make(body), child: nil, dependent: false))
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
