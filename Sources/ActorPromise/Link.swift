/// The bridge between a promise and a promise derived from it by an operator: it observes the
/// parent, runs the operator's handler on its context, and settles the child.
///
/// A link is at once the parent's observer and the work item handed to the context, so deriving a
/// promise costs two objects: the child's state actor and this link.
class Link<In: Sendable, Out: Sendable>: Observer<In>, @unchecked Sendable {
    // Safety: `input` is written in `receive` before the link is submitted to its context and read
    // in `run` after the context hands it back; see `WorkItem`.
    let child: PromiseCore<Out>
    let context: any ExecutionContext
    private var input: Outcome<In>?

    init(child: PromiseCore<Out>, context: any ExecutionContext) {
        self.child = child
        self.context = context
    }

    final override func receive(_ outcome: Outcome<In>) {
        input = outcome
        context.submit(self)
    }

    final override func run() {
        guard let outcome = input else { return }
        input = nil
        // A child cancelled while its handler waited in the queue skips the handler.
        if child.isSettled { return }
        fire(outcome)
    }

    final override func discard() {
        input = nil
        child.send(.settle(.failure(PromiseError(.abandoned, site: "a handler dropped by its execution context"))))
    }

    /// Runs the operator's handler for `outcome` and settles the child. Overridden per operator.
    func fire(_ outcome: Outcome<In>) {}

    /// Settles the child.
    @inline(__always)
    final func finish(_ outcome: Outcome<Out>) {
        child.send(.settle(outcome))
    }
}

/// What an outcome handler decided for the child: settle it now, or follow another promise.
enum LinkStep<Out: Sendable> {
    case settle(Outcome<Out>)
    case follow(Promise<Out>)
}

/// The general link: one closure from the parent's outcome to a step. The less frequent
/// operators (`catch`, `recover`, `ensure`, `tap`, …) are written with it.
final class OutcomeLink<In: Sendable, Out: Sendable>: Link<In, Out>, @unchecked Sendable {
    private let body: @Sendable (Outcome<In>) -> LinkStep<Out>

    init(child: PromiseCore<Out>, context: any ExecutionContext, body: @escaping @Sendable (Outcome<In>) -> LinkStep<Out>) {
        self.body = body
        super.init(child: child, context: context)
    }

    override func fire(_ outcome: Outcome<In>) {
        switch body(outcome) {
        case .settle(let outcome): finish(outcome)
        case .follow(let promise): child.adopt(promise.core)
        }
    }
}

/// Settles a promise with the outcome of the promise it adopted. Runs inline, through the drain
/// loop, so that adoption chains of any length stay flat.
final class AdoptObserver<Value: Sendable>: Observer<Value>, @unchecked Sendable {
    // Safety: as `Link`.
    private let target: PromiseCore<Value>
    private var input: Outcome<Value>?

    init(target: PromiseCore<Value>) { self.target = target }

    override func receive(_ outcome: Outcome<Value>) {
        input = outcome
        InlineContext.shared.submit(self)
    }

    override func run() {
        guard let outcome = input else { return }
        input = nil
        target.send(.settle(outcome))
    }
}

extension PromiseCore {
    /// Makes this promise follow `source` (Promises/A+ §2.3.2). Following itself is rejected with
    /// ``PromiseError/Code/selfResolution`` (§2.3.1).
    nonisolated func adopt(_ source: PromiseCore<Value>) {
        if source === self {
            send(.settle(.failure(PromiseError(.selfResolution))))
            return
        }
        if isSettled { return }
        send(.adopting(source))
        source.send(.register(observer: AdoptObserver(target: self), child: nil, dependent: true))
    }
}
