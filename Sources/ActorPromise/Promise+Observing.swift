// The package entry points the bridge module, the operators and the test runtime use to observe
// a promise without deriving one: a callback, a branch, the settled outcome, an await.

extension Promise {
    /// Calls `body` with the outcome on the settling thread, without deriving a promise. `body`
    /// must be quick and must not block. For the bridge module. The observer counts as a
    /// dependent that never stops waiting, so the promise never loses interest because of it.
    @inlinable
    package func observe(_ body: @escaping @Sendable (Outcome<Value>) -> Void) {
        core.observe(CallbackObserver.make(body))
    }

    /// Calls `body` on `context` with the outcome, without deriving a promise: `tap` for a caller
    /// that chains nothing on it (the bridge's `whenComplete`, B5). `body` runs once, with this
    /// promise's outcome (a cancel that finds it pending included), in registration order with the
    /// promise's handlers (R2) and with the task-local values bound here (R15); it counts as a
    /// dependent that never stops waiting (R7) and takes a rejection (R14). A context that drops it
    /// never calls it; a drop by a stopped context is reported to
    /// ``PromiseDiagnostics/abandonmentHandler``, an operation queue's cancel is not.
    @inlinable
    package func observe(on context: consuming any ExecutionContext, _ body: consuming @escaping @Sendable (Result<Value, any Error>) -> Void) {
        core.observe(ContextCallbackObserver(context: context, taskLocals: PromiseTaskLocals.capture(), body))
    }

    /// A promise that follows this one — it settles exactly as this promise does — so that
    /// cancelling it cancels only that branch: this promise loses one waiter (R7).
    ///
    /// A follower, not a child: the operators and combinators that use it observe this promise,
    /// so a cancel that reaches this promise after it settled changes nothing for them (R5), as
    /// it changes nothing for any other observer. A child would be reached by that cancel while
    /// its handler was still on its way.
    @inlinable
    package func branch() -> Promise<Value> {
        let follower = PromiseCore<Value>(PromiseStateMachine())
        follower.registerInReleaseIfTracking(site: PromiseSite())
        follower.adopt(core)
        return Promise(core: follower)
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
        if case .failure(let error) = outcome {
            takesEveryOutcome()
            if tracesAreOn { rememberAwaitedFailure(error) }
        }
        return outcome
    }
}

extension Promise {
    /// Marks this promise as observed by a party that takes every outcome without registering an
    /// observer — an awaiter or a blocking `wait` that found it settled — so that its rejection is
    /// not reported as unhandled (R14). It counts as a dependent that never stops waiting, like
    /// ``observe(_:)``.
    @inlinable
    package func takesEveryOutcome() {
        core.addDependent()
    }
}

extension Promise {
    /// Waits for the outcome without throwing; the awaiting task's cancellation resumes the wait
    /// at once with ``PromiseError/Code/cancelled`` and tells the promise it lost this waiter.
    /// For the bridge module (`value`, `outcome`).
    @inlinable
    nonisolated(nonsending) package func awaitOutcome() async -> Outcome<Value> {
        let outcome = await ActorPromise.awaitOutcome(of: core)
        if case .failure(let error) = outcome, tracesAreOn { rememberAwaitedFailure(error) }
        return outcome
    }
}
