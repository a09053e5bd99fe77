import Synchronization

/// Something a promise hands its outcome to, at settlement: a derived promise (its handler), an
/// adopting promise, an awaiter, a combinator's input, a bridge callback.
///
/// At settlement the observer is handed its source — the settled promise — and submitted to its
/// context, which later runs it; it then reads the outcome from the source. All of this happens
/// after the state actor's gate is left. A derived promise's state actor is its own observer (see
/// ``Link``); the others are ``Observer`` objects.
@usableFromInline
protocol OutcomeObserver: Runnable {
    /// Whether the observer runs on `.inline`: such observers run at once and take no part in the
    /// ordered delivery of the others (R2). Fixed at creation.
    var runsInline: Bool { get }
    /// Whether the observer is a promise that follows another (a snapshot; `false` for a
    /// callback, an awaiter).
    var isFollowingPromise: Bool { get }
    /// Whether the observer is a promise that follows `promise` (its adoptee is `promise`); `false`
    /// for a callback, an awaiter. With ``adoptionLock`` held, as every write of an adoptee is.
    func follows(_ promise: AnyObject) -> Bool

    /// Hands the observer its settled `source` and returns the context to submit it to. The
    /// observer no longer holds that context afterwards (L1: work queued on a context must not
    /// keep it alive).
    func handOver(from source: AnyObject) -> any ExecutionContext

    /// Makes the observer, about to run alone on the pool, the last of its delivery: once it has
    /// run it tells its source that the delivery is over (R2).
    func endsDeliveryWhenRun()
}

extension OutcomeObserver {
    /// Not a promise: callbacks, awaiters and the like follow nothing.
    @inlinable var isFollowingPromise: Bool { false }
    @inlinable func follows(_ promise: AnyObject) -> Bool { false }
}

/// An observer other than a derived promise.
///
/// Its outcome is not copied into it: it reads it from ``source``, so it stores nothing whose
/// layout depends on `Value`, and its `deinit`, which always runs unspecialized, needs no
/// generic-metadata look-up (the Performance article has the cost).
/// Each subclass is final and passes a runner created where its types are known, so a context
/// runs specialized code.
@usableFromInline
class Observer<Value: Sendable>: OutcomeObserver, @unchecked Sendable {
    // Safety (`@unchecked Sendable`): `source` and `endsDelivery` are written at settlement,
    // before the observer is submitted to its context, and read by the runner after the context
    // hands it back; `context` is written at creation and taken out once, at the same submission.
    // The outcome read through `source` was written once, under the source's gate, before the
    // settled bit was published, and never changes.

    /// The promise that delivered its outcome to this observer (retained); `nil` until then.
    @usableFromInline @exclusivity(unchecked) final var source: Unmanaged<PromiseCore<Value>>?
    /// Where the observer runs, until it is handed over (see ``handOver(from:)``).
    @usableFromInline @exclusivity(unchecked) final var context: (any ExecutionContext)?
    @usableFromInline final let runsInline: Bool
    /// Set on the last observer of a delivery when it runs alone on the pool.
    @usableFromInline @exclusivity(unchecked) final var endsDelivery = false
    @usableFromInline final let runner: @Sendable (Observer<Value>) -> Void

    @inlinable
    init(context: consuming any ExecutionContext, runner: @escaping @Sendable (Observer<Value>) -> Void) {
        // An exact-type check: no load (and no retain) of the shared instance on this path.
        self.runsInline = type(of: context) == InlineContext.self
        self.context = context
        self.runner = runner
    }

    deinit {
        detachSource()
    }

    @usableFromInline
    final func run() { runner(self) }

    @usableFromInline
    func discard() { detachSource() }

    /// An operation queue cancelled the observer before it ran; as ``discard()`` unless a
    /// subclass says otherwise. (Declared here, not left to `Runnable`'s default, so that a
    /// subclass's override is the one a context calls.)
    @usableFromInline
    func cancelWhileQueued() { discard() }

    @usableFromInline
    final func handOver(from source: AnyObject) -> any ExecutionContext {
        self.source = .passRetained(unsafeDowncast(source, to: PromiseCore<Value>.self))
        return handOverContext(&context)
    }

    @usableFromInline
    final func endsDeliveryWhenRun() { endsDelivery = true }

    /// Tells the promise this observer was delivered by that its delivery is over, if this
    /// observer ended one. Every runner that can run on a non-inline context calls it last.
    @inlinable @inline(__always)
    final func endDelivery() {
        guard endsDelivery else { return }
        endsDelivery = false
        // `endsDelivery` is set only at delivery, after `handOver(from:)`, and `source` is
        // cleared only after this call or on paths that never run the observer (discard, deinit).
        source.unsafelyUnwrapped._withUnsafeGuaranteedRef { $0.endDelivery() }
    }

    /// The outcome this observer was handed, or `nil` if it was never delivered (or was
    /// discarded). Read in place from the settled source.
    @inlinable @inline(__always)
    final func receivedOutcome() -> Outcome<Value>? {
        guard let source else { return nil }
        return source._withUnsafeGuaranteedRef { $0.publishedOutcome }
    }

    /// Where the promise that delivered to this observer was made (debug builds), once it has.
    final var sourceSiteText: String? {
        source?._withUnsafeGuaranteedRef { $0.siteText }
    }

    /// Forgets the source without reading its outcome: a context dropped this observer, or it is
    /// being freed.
    @inlinable
    final func detachSource() {
        source?.release()
        source = nil
    }
}

/// The observers of one promise, in registration order.
///
/// Two words: a lone observer is stored inline, so a promise with one handler allocates no
/// queue. `PromiseEffects` carries one of these through every operation, and stays small enough
/// to travel in registers only while this does. More observers wait in a ``WorkQueue``, which a
/// fan-out on the pool hands to that pool as it is (see ``deliver(from:holdsDelivery:)``).
@usableFromInline
struct ObserverList<Value: Sendable>: Sendable {
    @usableFromInline
    enum Storage: Sendable {
        case one(any OutcomeObserver)
        case many(RingQueue<any OutcomeObserver>)
    }

    @usableFromInline var storage: Storage?

    @inlinable init() {}

    @inlinable var isEmpty: Bool {
        if case .none = storage { return true }
        return false
    }

    /// How many observers there are.
    @inlinable
    var count: Int {
        switch storage {
        case nil: 0
        case .one: 1
        case .many(let observers): observers.count
        }
    }

    /// The observers as an array (for tests and descriptions).
    var all: [any OutcomeObserver] {
        switch storage {
        case nil: return []
        case .one(let observer): return [observer]
        case .many(let observers):
            var all: [any OutcomeObserver] = []
            observers.forEach { all.append($0) }
            return all
        }
    }

    /// Calls `body` with each observer, in registration order.
    @inlinable
    func forEach(_ body: (any OutcomeObserver) -> Void) {
        switch storage {
        case nil: break
        case .one(let observer): body(observer)
        case .many(let observers): observers.forEach(body)
        }
    }

    /// Puts `new` in the place of the observer that is `old`, and returns that observer; `nil`
    /// (and the list unchanged) if `old` is not among the observers. The others keep their order.
    @inlinable
    mutating func replace(_ old: AnyObject, with new: any OutcomeObserver) -> (any OutcomeObserver)? {
        switch storage.take() {
        case nil:
            return nil
        case .one(let observer):
            guard observer as AnyObject === old else {
                storage = .one(observer)
                return nil
            }
            storage = .one(new)
            return observer
        case .many(var observers):
            var replaced: (any OutcomeObserver)?
            observers.sift { observer in
                guard replaced == nil, observer as AnyObject === old else { return observer }
                replaced = observer
                return new
            }
            storage = .many(observers)
            return replaced
        }
    }

    /// Moves the observers out, leaving the list empty.
    @inlinable
    mutating func take() -> ObserverList {
        var taken = ObserverList()
        taken.storage = storage.take()
        return taken
    }

    @inlinable
    mutating func append(_ observer: consuming any OutcomeObserver) {
        switch storage.take() {
        case nil:
            storage = .one(observer)
        case .one(let first):
            var observers = RingQueue<any OutcomeObserver>(capacity: 4)
            observers.append(first)
            observers.append(observer)
            storage = .many(observers)
        case .many(var observers):
            observers.append(observer)
            storage = .many(observers)
        }
    }

    /// Delivers the outcome of `source`, which has settled, to every observer, in registration
    /// order (R2).
    ///
    /// Inline observers run at once (through the inline drain). Observers on other contexts are
    /// submitted in order, so a serial context runs them in order. Observers on the worker pool
    /// would run side by side if submitted one by one, so they go to the pool as one job that runs
    /// them one after another: a lone observer is submitted itself, several as a
    /// ``DeliveryGroup``. If `holdsDelivery`, `source`'s delivery ends once that pool job has run
    /// (or at once if there is none), and observers registered meanwhile are delivered then. The
    /// list is empty afterwards.
    @inlinable
    mutating func deliver(from source: PromiseCore<Value>, holdsDelivery: Bool) {
        // Moved out of the list, so each observer is handed on without a retain of its own.
        guard let taken = storage.take() else { return }
        switch consume taken {
        case .one(let observer):
            let context = observer.handOver(from: source)
            if holdsDelivery, let pool = asWorkerPool(context) {
                observer.endsDeliveryWhenRun()
                pool.take(consume observer)
                return
            }
            context.submit(consume observer)
            if holdsDelivery { source.endDelivery() }
        case .many(var observers):
            // The pool's observers stay in the list, which becomes the pool job: no second queue.
            var pool: WorkerPool?
            observers.sift { observer in
                let context = observer.handOver(from: source)
                if let candidate = asWorkerPool(context), pool == nil || pool === candidate {
                    if pool == nil { pool = candidate }
                    return observer
                }
                context.submit(observer)
                return nil
            }
            if let pool {
                pool.take(DeliveryGroup(consume observers, source: holdsDelivery ? source : nil))
            } else if holdsDelivery {
                source.endDelivery()
            }
        }
    }
}

/// The context an observer runs on, at its hand-over: moved out of `slot` and returned (L1: work
/// queued on a context must not keep it alive). Every observer kind hands its context over
/// through this. Moved, not copied: the delivery's one release of it is the only
/// reference-counting traffic the context sees on the way.
@inlinable @inline(__always)
func handOverContext(_ slot: inout (any ExecutionContext)?) -> any ExecutionContext {
    slot.take().unsafelyUnwrapped
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
/// the allocator.
@usableFromInline
final class DeliveryGroup: Runnable, @unchecked Sendable {
    // Safety: `observers` is filled before the group is submitted and emptied by `run()`, which
    // the pool calls once, after handing the group over; `source` is immutable.
    @usableFromInline @exclusivity(unchecked) var observers: RingQueue<any OutcomeObserver>
    @usableFromInline let source: (any DeliverySource)?

    @usableFromInline
    init(_ observers: consuming RingQueue<any OutcomeObserver>, source: (any DeliverySource)?) {
        self.observers = observers
        self.source = source
    }

    @usableFromInline
    func run() {
        while let observer = observers.popFirst() { observer.run() }
        source?.endDelivery()
    }
}

/// A promise whose delivery of observers can be ended without knowing its value type.
@usableFromInline
protocol DeliverySource: AnyObject, Sendable {
    func endDelivery()
    /// Where the promise was made (debug builds), for a test runtime's record of its jobs.
    var siteText: String? { get }
}

extension StateActor: DeliverySource {}

/// An observer that calls a closure with the outcome, through the inline drain loop. For
/// library-internal observers whose closure neither blocks nor waits (resuming a continuation).
@usableFromInline
final class CallbackObserver<Value: Sendable>: Observer<Value>, @unchecked Sendable {
    // Safety: `body` is immutable; see `Observer` for `source`.
    @usableFromInline let body: @Sendable (Outcome<Value>) -> Void

    @usableFromInline
    init(_ body: @escaping @Sendable (Outcome<Value>) -> Void, runner: @escaping @Sendable (Observer<Value>) -> Void) {
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

/// A callback on a context of the caller's choice (`whenComplete`, B5): an observer, not a derived
/// promise, since nobody can chain on what a callback returns. It runs with the task-local values
/// captured where it was registered (R15) and takes part in its promise's ordered delivery (R2)
/// like a handler.
@usableFromInline
final class ContextCallbackObserver<Value: Sendable>: Observer<Value>, @unchecked Sendable {
    // Safety: `body` and `taskLocals` are immutable; see `Observer` for `source`.
    @usableFromInline let body: @Sendable (Outcome<Value>) -> Void
    @usableFromInline let taskLocals: CapturedTaskLocals?

    @inlinable
    init(
        context: consuming any ExecutionContext, taskLocals: CapturedTaskLocals?,
        _ body: consuming @escaping @Sendable (Outcome<Value>) -> Void
    ) {
        self.body = body
        self.taskLocals = taskLocals
        super.init(context: context) { item in
            // Safety: an observer passes itself to its runner.
            let observer = unsafeDowncast(item, to: ContextCallbackObserver.self)
            if let outcome = observer.receivedOutcome() {
                if let taskLocals = observer.taskLocals {
                    taskLocals.bind { observer.body(outcome) }
                } else {
                    observer.body(outcome)
                }
            }
            observer.endDelivery()
        }
    }

    /// A context dropped the callback without running it (a stopped run loop): it is never called,
    /// and the drop is reported as a dropped handler's is (L1, R8). A delivery it was to end ends.
    @usableFromInline
    override func discard() {
        endDelivery()
        detachSource()
        PromiseDiagnostics.reportAbandoned(PromiseError.handlerDropped())
    }

    /// An operation queue cancelled the callback before it ran: it is never called, and nothing is
    /// reported (the caller cancelled it).
    @usableFromInline
    override func cancelWhileQueued() {
        endDelivery()
        detachSource()
    }
}

/// A party that takes the outcomes of several promises by their index (a combinator).
@usableFromInline
protocol IndexedOutcomeReceiver<Value>: AnyObject, Sendable {
    associatedtype Value: Sendable
    /// Takes input `index`'s outcome, on the thread that settled it.
    func receive(_ index: Int, _ outcome: Outcome<Value>)
}

/// An observer that hands its promise's outcome, with an index, to a ``IndexedOutcomeReceiver``,
/// through the inline drain loop: one per input of a combinator, no derived promise, no closure.
@usableFromInline
final class IndexedObserver<Receiver: IndexedOutcomeReceiver>: Observer<Receiver.Value>, @unchecked Sendable {
    // Safety: `receiver` and `index` are immutable; see `Observer` for `source`.
    @usableFromInline let receiver: Receiver
    @usableFromInline let index: Int

    @inlinable
    init(_ receiver: Receiver, _ index: Int) {
        self.receiver = receiver
        self.index = index
        super.init(context: InlineContext.shared) { item in
            // Safety: an observer passes itself to its runner.
            let observer = unsafeDowncast(item, to: IndexedObserver.self)
            if let outcome = observer.receivedOutcome() { observer.receiver.receive(observer.index, outcome) }
        }
    }
}

// MARK: - The awaiter


/// The values of ``AwaitObserver``'s `phase` (see there).
@usableFromInline
enum AwaitPhase: UInt8, AtomicRepresentable {
    case registered, armed, cancelledEarly, resumed, deliveredEarly
}

/// One `await` of a promise: a continuation that the outcome or the awaiting task's cancellation
/// resumes, whichever comes first, exactly once.
///
/// An awaiter is a plain observer — no derived promise, no link — counted as a dependent of the
/// promise (R7). When its task is cancelled it resumes at once with the cancellation error and the
/// promise loses that dependent, which cancels it if nobody else waits for it (B2, B7).
///
/// The observer is registered first, then armed, so a lost interest is never reported before the
/// dependent it pairs with. `phase` decides who resumes the continuation:
/// - `registered` (0): registered, continuation not armed yet;
/// - `armed` (1): the continuation may be resumed by the outcome or the cancellation;
/// - `cancelledEarly` (2): cancelled before arming; the awaiting side resumes with the error;
/// - `resumed` (3): resumed, by whichever moved `phase` here from `armed`;
/// - `deliveredEarly` (4): the outcome came before arming; the awaiting side reads it from the
///   source.
@usableFromInline
final class AwaitObserver<Value: Sendable>: Observer<Value>, @unchecked Sendable {
    // Safety (`@unchecked Sendable`): `continuation` is written once, before `phase` moves from
    // `registered` to `armed` (release), and read only by the one party that then moves `phase`
    // from `armed` to `resumed` (acquire). `source` follows `Observer`'s rule; when the outcome
    // comes early it is handed over through `phase` (`deliveredEarly`, release/acquire).
    @usableFromInline let phase = Atomic<AwaitPhase>(.registered)
    @usableFromInline @exclusivity(unchecked) var continuation: UnsafeContinuation<Outcome<Value>, Never>?

    @usableFromInline
    init(runner: @escaping @Sendable (Observer<Value>) -> Void) {
        super.init(context: InlineContext.shared, runner: runner)
    }

    @inlinable
    static func make() -> AwaitObserver {
        AwaitObserver { item in
            let observer = unsafeDowncast(item, to: AwaitObserver.self)
            // Before arming, the outcome stays with `source` for the awaiting side.
            schedulingPoint("await.deliver")
            if observer.phase.compareExchange(expected: AwaitPhase.registered, desired: AwaitPhase.deliveredEarly, ordering: .acquiringAndReleasing).exchanged { return }
            if let outcome = observer.receivedOutcome() { observer.resume(with: outcome) }
        }
    }

    /// Resumes the armed continuation with `outcome` unless another party did; returns whether
    /// this call did.
    @inlinable
    @discardableResult
    func resume(with outcome: Outcome<Value>) -> Bool {
        schedulingPoint("await.resume")
        guard phase.compareExchange(expected: AwaitPhase.armed, desired: AwaitPhase.resumed, ordering: .acquiringAndReleasing).exchanged else {
            return false
        }
        modelledAccess(self, "continuation", writes: false)
        let continuation = self.continuation.unsafelyUnwrapped
        self.continuation = nil
        // Resuming changes the task's status, which waits while its cancellation handler runs.
        schedulingPoint("await.continuation")
        continuation.resume(returning: outcome)
        return true
    }
}

/// Waits for `core`'s outcome without throwing; the awaiting task's cancellation resumes the wait
/// at once with ``PromiseError/Code/cancelled`` and tells the promise it lost this waiter.
/// `Promise.awaitOutcome()` calls it for the bridge module (`value`, `outcome`).
@inlinable
nonisolated(nonsending) func awaitOutcome<Value: Sendable>(of core: PromiseCore<Value>) async -> Outcome<Value> {
    let observer = AwaitObserver<Value>.make()
    return await withTaskCancellationHandler {
        let outcome = await withUnsafeContinuation { continuation in
            observer.continuation = continuation
            modelledAccess(observer, "continuation", writes: true)
            core.observe(observer)
            schedulingPoint("await.arm")
            let (armed, phase) = observer.phase.compareExchange(expected: AwaitPhase.registered, desired: AwaitPhase.armed, ordering: .acquiringAndReleasing)
            if armed {
                // Armed: the runtime now suspends the task, under the task's lock.
                schedulingPoint("await.suspends")
                return
            }
            // Resumed at once, which changes the task's status under its lock too.
            schedulingPoint("await.continuation")
            observer.continuation = nil
            observer.phase.store(AwaitPhase.resumed, ordering: .relaxed)
            if phase == AwaitPhase.deliveredEarly, let outcome = observer.receivedOutcome() {
                continuation.resume(returning: outcome)
            } else {
                continuation.resume(returning: .failure(PromiseError.cancelled()))
                loseInterest(core, cause: tracesAreOn ? .taskCancelled : nil)
            }
        }
        // Resumed: the runtime now removes the cancellation handler, under the task's lock.
        schedulingPoint("await.resumed")
        return outcome
    } onCancel: {
        schedulingPoint("await.cancel")
        if observer.phase.compareExchange(expected: AwaitPhase.registered, desired: AwaitPhase.cancelledEarly, ordering: .acquiringAndReleasing).exchanged { return }
        if observer.resume(with: .failure(PromiseError.cancelled())) { loseInterest(core, cause: tracesAreOn ? .taskCancelled : nil) }
    }
}
