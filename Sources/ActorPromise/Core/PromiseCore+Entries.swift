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
        tracksInterest: Bool?, observesCancellation: Bool, site: PromiseSite, link: consuming sending Link
    ) -> PromiseCore<Out> {
        let child = PromiseCore<Out>(
            PromiseStateMachine(), tracksInterest: tracksInterest ?? self.tracksInterest, parent: self,
            link: link, observesCancellation: observesCancellation, site: site)
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
    @inlinable
    nonisolated func settle(_ outcome: consuming Outcome<Value>) {
        send(.settle(outcome))
    }

    /// Rejects the promise as ``PromiseError/Code/abandoned``, naming its site (debug builds), and
    /// reports it — unless it has settled or follows another promise by the time the operation
    /// reaches the gate (R8). Called by a resolver's `deinit`.
    @usableFromInline
    nonisolated func abandon() {
        send(.abandon(PromiseError(.abandoned, site: siteText)))
    }

    /// Registers `handler` to run once if the promise is cancelled while pending (R6).
    @inlinable
    nonisolated func addCancelHandler(_ handler: consuming @escaping @Sendable () -> Void) {
        send(.onCancel(handler))
    }
}
