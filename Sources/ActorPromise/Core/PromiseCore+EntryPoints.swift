import Synchronization

// The core's entry points: what the rest of the library asks of a promise's state, by name.
// Operators, combinators, the resolver and the bridge call these; only the core builds a
// `PromiseOp` and `send`s it. Parameters are `consuming`, as the operation's payloads are: taking
// them borrowed would cost a retain and a release per call.
extension StateActor where Machine == PromiseStateMachine<Value> {
    /// Applies `op` and carries out its effects.
    @inlinable
    nonisolated func send(_ op: consuming PromiseOp<Value>) {
        if let effects = perform(op) { carryOut(effects) }
    }

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
        send(.observe(consume observer))
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
        send(.settle(consume outcome))
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
        send(.onCancel(consume handler))
    }
}
