import Synchronization

/// What a derived promise runs when its parent settles: the operator's handler, the context it runs
/// on, and a runner that knows both promises' types.
///
/// A derived promise is one object. Its state actor is at once its parent's observer and the
/// ``Runnable`` its handler's context queues; this struct is the part of its state that makes it
/// so. It is written when the promise is made, handed over at the parent's settlement, and emptied
/// when the handler has run (or was dropped), so that a promise kept afterwards keeps nothing its
/// handler captured. A promise made by a resolver has an empty link.
///
/// The handler depends on the parent's value type as well as the child's, which the actor (generic
/// over its own value only) cannot name: it is stored as an ``ErasedClosure`` and read back by
/// the runner, which was created where both types are known and so runs specialized code. The
/// struct itself is not generic, so that the actor's `deinit` and the unspecialized `Runnable`
/// requirements reach and destroy it at a fixed offset, without a generic-metadata look-up; and
/// it is not copyable, so that it moves from the operator into the actor without the copy and
/// destruction (three retains and three releases) an inlined initializer otherwise makes.
@usableFromInline
struct Link: ~Copyable {
    // Safety: the fields are written when the promise is made, and at the hand-over (on the
    // settling thread, before submission to the context); the runner reads and empties them on the
    // context's thread, after the context took the promise. Nothing else touches them.

    /// Where the handler runs; moved out at the hand-over (L1).
    @usableFromInline var context: (any ExecutionContext)?
    /// Runs the handler: reads the parent's outcome, calls ``body``, settles the child.
    @usableFromInline var runner: (@Sendable (AnyObject) -> Void)?
    /// The operator's handler, its type erased.
    @usableFromInline var body: ErasedClosure?

    /// A link with nothing to run: a promise made by a resolver, or one whose handler has run.
    @inlinable init() {}

    /// The link of a lazy promise: its body waits in the handler slot, which a promise made with
    /// a resolver never uses for a handler (see `CoreHooks`), and `runner` runs it when the
    /// promise is first observed (R10). A lazy promise has no handler, and it can start
    /// following another promise only through the resolver its body gets, after the runner left.
    @inlinable
    init(lazyBody: consuming ErasedClosure, runner: @escaping @Sendable (AnyObject) -> Void) {
        body = lazyBody
        self.runner = runner
    }

    /// Moves the handler out, as the `Body` it was stored as (see ``ErasedClosure``), and leaves
    /// the slot empty: the handler changes hands without reference counting (a copy and the
    /// release of the original cost a retain and a release per link).
    @inlinable @inline(__always)
    mutating func takeBody<Body>(as _: Body.Type) -> Body { ErasedClosure.take(from: &body, as: Body.self) }

    /// A link whose runner is written for the derived promise's own type: the runner gets the
    /// promise, not the `AnyObject` every link stores, so the links that need no catch policy
    /// (the operators' and the core's alike) name their child's type and hold no cast of their own.
    ///
    /// Safety of the downcast: a link is stored only in the promise whose value type is `Out` (the
    /// operator that makes it derives a `Promise<Out>` with it), and that promise passes itself to
    /// its runner.
    @inlinable @inline(__always)
    init<Out: Sendable>(
        context: consuming any ExecutionContext, taskLocals: CapturedTaskLocals?, body: ErasedClosure,
        runnerFor _: Out.Type, _ runner: @escaping @Sendable (PromiseCore<Out>) -> Void
    ) {
        self.init(context: context, taskLocals: taskLocals, body: body) { object in
            runner(Link.promise(object, as: Out.self))
        }
    }

    /// The promise a runner is handed, as its own type.
    ///
    /// Safety of the downcast: a runner is called only with the promise that stores its link, and
    /// whoever writes a runner names that promise's value type as `Out`.
    @inlinable @inline(__always)
    static func promise<Out: Sendable>(_ object: AnyObject, as _: Out.Type) -> PromiseCore<Out> {
        PromiseCore<Out>.known(object)
    }

    /// - Parameter taskLocals: The task-local values to run the handler with (R15): those bound
    ///   where the handler was registered, captured by `derive` before anything else.
    @inlinable
    init(
        context: consuming any ExecutionContext, taskLocals: CapturedTaskLocals?, body: ErasedClosure,
        runner: @escaping @Sendable (AnyObject) -> Void
    ) {
        self.context = context
        self.body = body
        if let taskLocals {
            self.runner = { child in taskLocals.bind { runner(child) } }
        } else {
            self.runner = runner
        }
    }
}

/// The handlers of `then` and `map`, stored as written (see ``ErasedClosure``).
@usableFromInline struct ThenBody<In, Out> {
    @usableFromInline let run: @Sendable (In) throws -> Out
    @inlinable init(_ run: @escaping @Sendable (In) throws -> Out) { self.run = run }
}

/// A handler that returns nothing: apart from ``ThenBody`` so that the user's closure is stored as
/// written (as `ThenBody<In, Void>` it would need a reabstraction thunk: one allocation more).
@usableFromInline struct VoidBody<In> {
    @usableFromInline let run: @Sendable (In) throws -> Void
    @inlinable init(_ run: @escaping @Sendable (In) throws -> Void) { self.run = run }
}

/// A handler of the parent's whole outcome.
@usableFromInline struct OutcomeBody<In: Sendable, Out: Sendable> {
    @usableFromInline let run: @Sendable (Outcome<In>) -> LinkStep<Out>
    @inlinable init(_ run: @escaping @Sendable (Outcome<In>) -> LinkStep<Out>) { self.run = run }
}

/// What an outcome handler decided for the child: settle it now, or follow another promise.
@usableFromInline
enum LinkStep<Out: Sendable> {
    case settle(Outcome<Out>)
    case follow(PromiseCore<Out>)
}

extension Link {
    /// The general link: one closure from the parent's outcome to a step. The operators that
    /// observe errors or outcomes (`catch`, `recover`, `ensure`, `tap`, `whenComplete`, the
    /// two-handler `then`) are written with it, and so it runs even when its promise was cancelled
    /// first: cancellation is a rejection its handler must see (R5b). Its promise is made with
    /// `observesCancellation`.
    @inlinable
    static func outcome<In: Sendable, Out: Sendable>(
        context: consuming any ExecutionContext, taskLocals: CapturedTaskLocals?,
        body: consuming @escaping @Sendable (Outcome<In>) -> LinkStep<Out>
    ) -> Link {
        Link(context: context, taskLocals: taskLocals, body: ErasedClosure(OutcomeBody(body)), runnerFor: Out.self) { promise in
            promise.runHandler(In.self, as: OutcomeBody<In, Out>.self) { child, body in
                child.runOutcomeHandler(In.self, body.run)
            }
        }
    }
}

/// A derived promise's side of its link: the `Runnable` and `OutcomeObserver` requirements, and
/// what runners share. The requirements run unspecialized (a context knows neither type); they
/// touch no value-typed state but through the runner.
extension StateActor: Runnable, OutcomeObserver {
    /// Runs the handler. (`unsafelyUnwrapped` would pass the closure through a generic getter,
    /// which wraps it in an allocated reabstraction thunk: `if let` reads it as stored.)
    @usableFromInline
    nonisolated func run() {
        // Moved out, not copied: the runner empties the rest of the link.
        if let runner = link.runner.take() { runner(self) }
    }

    /// A context dropped the handler without running it: the handler and its captures are freed,
    /// and a promise still pending is abandoned — nothing else can settle it — and reported as
    /// such (L1, R8). A promise already settled (cancelled, so the context skipped its handler)
    /// keeps its outcome.
    @usableFromInline
    nonisolated func discard() {
        link = Link()
        guard isPending else { return }
        typed.settle(.failure(PromiseError.handlerDropped()), cause: .abandoned)
        typed.reportAbandoned()
    }

    /// An operation queue cancelled the handler before it ran: this promise is cancelled.
    @usableFromInline
    nonisolated func cancelWhileQueued() {
        link = Link()
        cancelTree(self, reason: nil, origin: tracesAreOn ? .cancelled(PromiseSite(fileID: "", line: 0, operation: .cancelledWhileQueued)) : nil)
    }

    /// Once this promise is settled (cancelled), running a value handler is pointless; a handler
    /// that observes errors still runs, to see the cancellation.
    @usableFromInline
    nonisolated var isObsolete: Bool { !observesCancellation && isSettled }

    @usableFromInline
    nonisolated func handOver(from source: AnyObject) -> any ExecutionContext {
        handOverContext(&link.context)
    }

    @usableFromInline
    nonisolated func endsDeliveryWhenRun() { endsDelivery = true }

    /// Whether this promise, pending, follows another (its status says so).
    @usableFromInline
    nonisolated var isFollowingPromise: Bool {
        schedulingPoint("status.following")
        return status.load(ordering: .relaxed).contains(.following)
    }
}

extension StateActor where Machine == PromiseStateMachine<Value> {

    /// Calls `body` with the parent, which delivered its outcome to this promise's handler,
    /// without a reference of its own: this promise holds its parent for as long as it lives
    /// (`parent` is emptied only by `deinit`), so the parent outlives the call. (A parent returned
    /// as a value would be retained and released on every run, and a handler's run reads it up to
    /// twice.)
    @inlinable @inline(__always)
    nonisolated func withSource<In: Sendable, Result>(_: In.Type, _ body: (PromiseCore<In>) -> Result) -> Result {
        // Borrowed: this promise holds its parent until its `deinit`. A read, not an `inout`
        // access (other threads read `parent` meanwhile); the copy ends at once, so the optimizer
        // drops its retain and release.
        Unretained(PromiseCore<In>.known(parent! as AnyObject)).with(body)
    }

    /// Runs the handler stored as `Body`, then ends the parent's delivery if this handler was the
    /// last of it (R2). The link is empty by then: the context left at the hand-over, the runner
    /// when `run()` called it, the handler here.
    @inlinable @inline(__always)
    nonisolated func runHandler<In: Sendable, Body>(_: In.Type, as _: Body.Type, _ work: (PromiseCore<Value>, Body) -> Void) {
        let body = link.takeBody(as: Body.self)
        let endsDelivery = self.endsDelivery
        work(self, body)
        if endsDelivery { withSource(In.self) { $0.endDelivery() } }
    }

    /// Makes the failure this promise's handler is handed the thread's current one (R16), and
    /// returns what to restore when the handler is done. Out of line: traces are on.
    @usableFromInline
    nonisolated func beginHandling<In: Sendable>(_ error: any Error, from _: In.Type) -> HandledFailure.Outer {
        HandledFailure.begin(handedFailure(error, from: In.self))
    }

    /// `error`, which this promise's handler is handed, with its trace (R16): this promise's own
    /// cancellation, when it is that error (R5b), or else the parent's rejection, which has
    /// settled; `nil` when the failure has no trace.
    @usableFromInline
    nonisolated func handedFailure<In: Sendable>(_ error: any Error, from _: In.Type) -> HandledFailure? {
        // A plain load, not the checker's scheduling point: what it reads decides only the trace.
        let isOwn = status.load(ordering: .acquiring).contains(.settled)
            && publishedOutcome.map { if case .failure(let own) = $0 { ErrorIdentity(own) == ErrorIdentity(error) } else { false } } ?? false
        guard let trace = isOwn ? traceNode : withSource(In.self, { $0.traceNode }) else { return nil }
        return HandledFailure(error: error, trace: trace, handler: traceSite)
    }

    /// The parent's outcome, unless this promise was settled (cancelled) meanwhile: a promise
    /// cancelled while its handler waited in the queue skips the handler.
    @inlinable @inline(__always)
    nonisolated func outcomeForRun<In: Sendable>(_: In.Type) -> Outcome<In>? {
        guard !isSettled else { return nil }
        return withSource(In.self) { $0.publishedOutcome }
    }

    /// The outcome for a handler that observes errors (R5b): the parent's, or this promise's
    /// cancellation error if it was cancelled while its parent was still pending. A cancel that
    /// came after the parent settled changes nothing the handler reports (R1, B5). Such a
    /// handler runs either way; what it returns is ignored by a promise that is already settled.
    @inlinable @inline(__always)
    nonisolated func outcomeObservingCancellation<In: Sendable>(_: In.Type) -> Outcome<In>? {
        schedulingPoint("status.load")
        let status = status.load(ordering: .acquiring)
        guard status.contains(.settled), !status.contains(.cancelledAfterSource) else {
            return withSource(In.self) { $0.publishedOutcome }
        }
        guard case .failure(let error)? = settledOutcome else { return nil }
        return .failure(error)
    }

    /// The run of a handler that observes errors: it sees the parent's outcome, or this promise's
    /// cancellation (R5b), and settles this promise or makes it follow another.
    @inlinable @inline(__always)
    nonisolated func runOutcomeHandler<In: Sendable>(_: In.Type, _ body: (Outcome<In>) -> LinkStep<Value>) {
        guard let outcome = outcomeObservingCancellation(In.self) else { return }
        // A failure handed to the handler is the thread's while it runs, while traces are on
        // (R16): `PromiseTrace.of` answers in it, and a promise settled with it carries it on.
        let outer: HandledFailure.Outer? = if case .failure(let error) = outcome, tracesAreOn { beginHandling(error, from: In.self) } else { nil }
        switch body(outcome) {
        case .settle(let outcome): settle(outcome, cause: .threw)
        case .follow(let source): adopt(source)
        }
        if let outer { HandledFailure.end(restoring: outer) }
    }

    /// The run of a value handler (`then`, `map`): a fulfilment goes through `body` to this
    /// promise, a rejection straight to it (R4); nothing runs for a promise cancelled meanwhile.
    @inlinable @inline(__always)
    nonisolated func runValueHandler<In: Sendable>(_: In.Type, _ body: (In) throws -> Value) {
        guard let outcome = outcomeForRun(In.self) else { return }
        switch outcome {
        case .success(let value):
            do { settle(.success(try body(value))) } catch { settle(.failure(error), cause: .threw) }
        case .failure(let error):
            // Passed on: the parent's trace goes on through this promise (R16).
            if tracesAreOn { return settle(.failure(error), carryingOn: withSource(In.self) { $0.traceNode }, as: traceSite) }
            settle(.failure(error))
        }
    }
}

extension StateActor where Machine == PromiseStateMachine<Value> {
    /// Makes this promise follow `source` (Promises/A+ §2.3.2). Following itself is rejected with
    /// ``PromiseError/Code/selfResolution`` (§2.3.1).
    @inlinable
    nonisolated func adopt(_ source: PromiseCore<Value>) {
        if source === self {
            settle(.failure(PromiseError(.selfResolution)))
            return
        }
        if isSettled {
            if wasCancelledWhilePending { source.refuse() }
            return
        }
        send(.follow(source, follower: ObjectIdentifier(self)))
        // A settled source settles this promise at once: no level behind it to skip any more.
        if !source.isSettled { collapseFollowers() }
    }
}
