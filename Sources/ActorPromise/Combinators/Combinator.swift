import ActorPromiseExecutors

/// Shared machinery of the collection combinators: a result promise, a lock, and the inputs.
///
/// Each input is observed directly by a small observer that knows its index (no derived promise,
/// no closure per input); the first observation that decides the outcome settles the result.
/// Once the result is decided or cancelled, the combinator stops waiting for its inputs: each
/// input loses one interested dependent, so an input that nobody else waits for cancels itself
/// and its work (R7, B7), while an input shared with other waiters keeps going. Inlinable, so it
/// is specialized for the caller's types (unspecialized generic code costs metadata look-ups).
@usableFromInline
final class Combinator<Input: Sendable, Output: Sendable, State: Sendable>: Sendable {
    /// What the lock guards: the folded state, and where the combinator is in its life.
    @usableFromInline
    struct Guarded: Sendable {
        @usableFromInline var state: State
        @usableFromInline var isDecided = false
        /// Every input has its observer registered (so each counts this combinator as a dependent).
        @usableFromInline var isStarted = false
        /// The inputs were told that this combinator stopped waiting (done once).
        @usableFromInline var isReleased = false

        @inlinable init(state: State) { self.state = state }
    }

    @usableFromInline let guarded: LockedState<Guarded>
    @usableFromInline let inputs: [Promise<Input>]
    @usableFromInline let step: @Sendable (inout State, Int, Outcome<Input>) -> Outcome<Output>?
    @usableFromInline let resolver: Resolver<Output>
    @usableFromInline let promise: Promise<Output>
    /// Stopped when the result is cancelled or rejected; the step counts completed inputs.
    @usableFromInline let progress: ProgressReporter?
    /// The combinator's name in failure traces (`all`, `zip`): an input's rejection passes on
    /// as `zip input 2 of 3` (R16).
    @usableFromInline let operation: TraceOperation

    /// - Parameter step: Folds one input's outcome into the state; returns the result's outcome
    ///   once it is decided.
    @inlinable
    init(
        inputs: [Promise<Input>], state: State, progress: ProgressReporter? = nil, operation: TraceOperation,
        fileID: StaticString, line: UInt, step: @escaping @Sendable (inout State, Int, Outcome<Input>) -> Outcome<Output>?
    ) {
        self.inputs = inputs
        self.guarded = LockedState(Guarded(state: state))
        self.progress = progress
        self.step = step
        self.operation = operation
        let site = PromiseSite(fileID: fileID, line: line, operation: operation)
        let core = PromiseCore<Output>(PromiseStateMachine(), site: site, rare: .keeping(site))
        (promise, resolver) = (Promise(core: core), Resolver(core: core))
    }

    /// Observes every input and returns the result promise.
    @inlinable
    func start() -> Promise<Output> {
        // Holds `self` until the result settles; the hook is dropped then.
        resolver.onCancel {
            self.progress?.stop()
            self.stopWaiting(decided: true)
        }
        promise.core.notePendingInputs(inputs.map { ObjectIdentifier($0.core) })
        for (index, input) in inputs.enumerated() {
            input.core.observe(IndexedObserver(self, index))
        }
        stopWaiting(decided: false, started: true)
        return promise
    }

    /// Tells every input, once, that this combinator no longer waits for it — but only after all
    /// of them registered it as a dependent, so that no input counts a loss before the gain.
    @inlinable
    func stopWaiting(decided: Bool, started: Bool = false) {
        let releases = guarded.withLock { guarded in
            if decided { guarded.isDecided = true }
            if started { guarded.isStarted = true }
            guard guarded.isDecided, guarded.isStarted, !guarded.isReleased else { return false }
            guarded.isReleased = true
            return true
        }
        guard releases else { return }
        let cause = promise.core.lostInterestCause
        for input in inputs { loseInterest(input.core, cause: cause) }
    }

    @inlinable
    func receive(_ index: Int, _ outcome: Outcome<Input>) {
        let decision: Outcome<Output>? = guarded.withLock { guarded in
            guard !guarded.isDecided, let decision = step(&guarded.state, index, outcome) else { return nil }
            guarded.isDecided = true
            return decision
        }
        guard let decision else { return }
        if case .failure = decision {
            progress?.stop()
            if tracesAreOn {
                resolver.resolve(decision, carryingOn: traceCarried(from: index, outcome, to: decision), as: inputSite(index))
                stopWaiting(decided: true)
                return
            }
        }
        resolver.resolve(decision)
        stopWaiting(decided: true)
    }

    /// The trace of input `index`'s rejection, when the result is rejected with that very error
    /// (`all`, `zip`, `race`); `nil` for a new error (`any`'s aggregate).
    @usableFromInline
    func traceCarried(from index: Int, _ outcome: Outcome<Input>, to decision: Outcome<Output>) -> TraceNode? {
        guard case .failure(let input) = outcome, case .failure(let result) = decision,
              ErrorIdentity(input) == ErrorIdentity(result) else { return nil }
        return inputs[index].core.traceNode
    }

    /// Input `index` as a failure trace names it: `zip input 2 of 3`, at the combinator's site.
    @usableFromInline
    func inputSite(_ index: Int) -> PromiseSite {
        let site = promise.core.traceSite
        return PromiseSite(
            fileID: site.file, line: UInt(site.line), operation: operation, index: index + 1, count: inputs.count)
    }
}

extension Combinator: IndexedOutcomeReceiver {}
