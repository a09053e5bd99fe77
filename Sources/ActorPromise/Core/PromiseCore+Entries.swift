// The core's entry points: what the rest of the library asks of a promise's state, by name.
// Operators, combinators, the resolver and the bridge call these; only the core builds a
// `PromiseOp` and `send`s it.
extension PromiseCore {
    /// Registers `link` as an observer and `child` as a dependent child: a derived promise (R2,
    /// R5, R7).
    @inlinable
    nonisolated func derive(_ child: any PromiseNode, observedBy link: Observer<Value>) {
        send(.register(observer: link, child: child, dependent: true))
    }

    /// Registers `observer`, which counts as a dependent that never stops waiting: an awaiter
    /// (until its task is cancelled), a combinator's input observer, a blocking `wait`, an
    /// adopting promise, a bridge callback.
    @inlinable
    nonisolated func observe(_ observer: Observer<Value>) {
        send(.register(observer: observer, child: nil, dependent: true))
    }

    /// Adds a dependent with no observer: a party that takes every outcome without being called
    /// (R14), or one that is about to walk away (``refuse()``).
    @inlinable
    nonisolated func addDependent() {
        send(.register(observer: nil, child: nil, dependent: true))
    }

    /// Settles the promise; ignored if it is settled already (R1).
    @inlinable
    nonisolated func settle(_ outcome: Outcome<Value>) {
        send(.settle(outcome))
    }

    /// Registers `handler` to run once if the promise is cancelled while pending (R6).
    @inlinable
    nonisolated func addCancelHandler(_ handler: @escaping @Sendable () -> Void) {
        send(.onCancel(handler))
    }
}
