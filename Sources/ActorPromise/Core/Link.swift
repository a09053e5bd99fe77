/// The bridge between a promise and a promise derived from it by an operator: it observes the
/// parent, runs the operator's handler on its context, and settles the child.
///
/// A link is at once the parent's observer and the work item handed to the context, so deriving a
/// promise costs two objects: the child's state actor and this link. Each operator is a final
/// subclass whose runner is created where its types are known, so it runs specialized code.
@usableFromInline
class Link<In: Sendable, Out: Sendable>: Observer<In>, @unchecked Sendable {
    // Safety: see `Observer`; `child` is immutable.
    @usableFromInline final let child: PromiseCore<Out>

    /// - Parameter taskLocals: The task-local values to run the handler with (R15): those bound
    ///   where the handler was registered, captured by `derive` before anything else, where the
    ///   check costs least (`nil`, one atomic load, with no key registered).
    @inlinable
    init(
        child: PromiseCore<Out>, context: any ExecutionContext, taskLocals: CapturedTaskLocals?,
        runner: @escaping @Sendable (WorkItem) -> Void
    ) {
        self.child = child
        if let taskLocals {
            super.init(context: context, retainsSource: false, runner: { item in taskLocals.bind { runner(item) } })
        } else {
            super.init(context: context, retainsSource: false, runner: runner)
        }
    }

    /// A context dropped the handler without running it: the child can never be settled by it.
    override func discard() {
        detachSource()
        child.settle(.failure(PromiseError.handlerDropped()))
    }

    /// An operation queue cancelled the handler before it ran: the child is cancelled.
    override func cancelWhileQueued() {
        detachSource()
        cancelTree(child, reason: nil)
    }

    /// Once the child is settled (cancelled), running the handler is pointless.
    override var isObsolete: Bool { child.isSettled }

    /// The outcome to work on, unless the child was settled (cancelled) meanwhile: a child
    /// cancelled while its handler waited in the queue skips the handler.
    @inlinable @inline(__always)
    final func outcomeForRun() -> Outcome<In>? {
        guard let outcome = receivedOutcome(), !child.isSettled else { return nil }
        return outcome
    }

    /// The outcome to work on for a handler that observes errors (R5b): the received outcome, or
    /// the child's cancellation error if the child was cancelled while the handler waited. Such a
    /// handler runs either way; what it returns is ignored by a child that is already settled.
    @inlinable @inline(__always)
    final func outcomeObservingCancellation() -> Outcome<In>? {
        guard let outcome = receivedOutcome() else { return nil }
        guard child.isSettled else { return outcome }
        guard case .failure(let error)? = child.settledOutcome else { return nil }
        return .failure(error)
    }

    /// Settles the child.
    @inlinable @inline(__always)
    final func finish(_ outcome: Outcome<Out>) {
        child.settle(outcome)
    }

    /// The run of a value handler (`then`, `map`): a fulfilment goes through `body` to the child,
    /// a rejection straight to the child (R4); nothing runs for a child cancelled meanwhile.
    @inlinable @inline(__always)
    final func runValueHandler(_ body: (In) throws -> Out) {
        defer { endDelivery() }
        guard let outcome = outcomeForRun() else { return }
        switch outcome {
        case .success(let value):
            do { finish(.success(try body(value))) } catch { finish(.failure(error)) }
        case .failure(let error):
            finish(.failure(error))
        }
    }
}

/// What an outcome handler decided for the child: settle it now, or follow another promise.
@usableFromInline
enum LinkStep<Out: Sendable> {
    case settle(Outcome<Out>)
    case follow(Promise<Out>)
}

/// The general link: one closure from the parent's outcome to a step. The operators that observe
/// errors or outcomes (`catch`, `recover`, `ensure`, `tap`, `whenComplete`, the two-handler `then`)
/// are written with it, and so it runs even when its child was cancelled first: cancellation is a
/// rejection its handler must see (R5b).
@usableFromInline
final class OutcomeLink<In: Sendable, Out: Sendable>: Link<In, Out>, @unchecked Sendable {
    @usableFromInline let body: @Sendable (Outcome<In>) -> LinkStep<Out>

    @usableFromInline
    init(
        child: PromiseCore<Out>, context: any ExecutionContext, taskLocals: CapturedTaskLocals?,
        body: @escaping @Sendable (Outcome<In>) -> LinkStep<Out>,
        runner: @escaping @Sendable (WorkItem) -> Void
    ) {
        self.body = body
        super.init(child: child, context: context, taskLocals: taskLocals, runner: runner)
    }

    /// Never obsolete: a cancelled child's handler still runs, to observe the cancellation.
    override var isObsolete: Bool { false }

    @inlinable
    static func make(
        child: PromiseCore<Out>, context: any ExecutionContext, taskLocals: CapturedTaskLocals?,
        body: @escaping @Sendable (Outcome<In>) -> LinkStep<Out>
    ) -> OutcomeLink {
        OutcomeLink(child: child, context: context, taskLocals: taskLocals, body: body) { item in
            let link = unsafeDowncast(item, to: OutcomeLink.self)
            defer { link.endDelivery() }
            guard let outcome = link.outcomeObservingCancellation() else { return }
            switch link.body(outcome) {
            case .settle(let outcome): link.finish(outcome)
            case .follow(let promise): link.child.adopt(promise.core)
            }
        }
    }
}

/// Settles a promise with the outcome of the promise it adopted. Runs inline, through the drain
/// loop, so that adoption chains of any length stay flat.
@usableFromInline
final class AdoptObserver<Value: Sendable>: Observer<Value>, @unchecked Sendable {
    @usableFromInline let target: PromiseCore<Value>

    @usableFromInline
    init(target: PromiseCore<Value>, runner: @escaping @Sendable (WorkItem) -> Void) {
        self.target = target
        super.init(context: InlineContext.shared, runner: runner)
    }

    @inlinable
    static func make(target: PromiseCore<Value>) -> AdoptObserver {
        AdoptObserver(target: target) { item in
            let observer = unsafeDowncast(item, to: AdoptObserver.self)
            if let outcome = observer.receivedOutcome() { observer.target.settle(outcome) }
        }
    }
}

extension PromiseCore {
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
    }
}
