import Executors

/// Shared machinery of the collection combinators: a result promise, a lock, and the inputs.
///
/// Each input is observed directly by a small observer that knows its index (no derived promise,
/// no closure per input); the first observation that decides the outcome settles the result and
/// cancels the inputs still pending. Cancelling the result cancels every input. Inlinable, so it
/// is specialized for the caller's types (unspecialized generic code costs metadata look-ups).
@usableFromInline
final class Combinator<Input: Sendable, Output: Sendable, State>: @unchecked Sendable {
    // Safety (`@unchecked Sendable`): `state` and `isDecided` are guarded by `lock`; the rest is
    // immutable after init.
    @usableFromInline let lock = ConditionLock()
    @usableFromInline var state: State
    @usableFromInline var isDecided = false
    @usableFromInline let inputs: [Promise<Input>]
    @usableFromInline let step: @Sendable (inout State, Int, Outcome<Input>) -> Outcome<Output>?
    @usableFromInline let resolver: Resolver<Output>
    @usableFromInline let promise: Promise<Output>

    /// - Parameter step: Folds one input's outcome into the state; returns the result's outcome
    ///   once it is decided.
    @inlinable
    init(
        inputs: [Promise<Input>], state: State, fileID: StaticString, line: UInt,
        step: @escaping @Sendable (inout State, Int, Outcome<Input>) -> Outcome<Output>?
    ) {
        self.inputs = inputs
        self.state = state
        self.step = step
        (promise, resolver) = Promise<Output>.pending(fileID: fileID, line: line)
        let inputs = inputs
        resolver.onCancel { for input in inputs { input.cancel() } }
    }

    /// Observes every input and returns the result promise.
    @inlinable
    func start() -> Promise<Output> {
        for (index, input) in inputs.enumerated() {
            input.core.send(.register(observer: CombinatorObserver.make(self, index), child: nil, dependent: true))
        }
        return promise
    }

    @inlinable
    func receive(_ index: Int, _ outcome: Outcome<Input>) {
        lock.lock()
        guard !isDecided, let decision = step(&state, index, outcome) else {
            lock.unlock()
            return
        }
        isDecided = true
        lock.unlock()
        resolver.resolve(decision)
        for input in inputs where input.isPending { input.cancel() }
    }
}

/// Observes one input of a ``Combinator``.
@usableFromInline
final class CombinatorObserver<Input: Sendable, Output: Sendable, State>: Observer<Input>, @unchecked Sendable {
    // Safety: immutable after init; see `Observer` for `input`.
    @usableFromInline let combinator: Combinator<Input, Output, State>
    @usableFromInline let index: Int

    @usableFromInline
    init(_ combinator: Combinator<Input, Output, State>, _ index: Int, runner: @escaping @Sendable (WorkItem) -> Void) {
        self.combinator = combinator
        self.index = index
        super.init(context: InlineContext.shared, runner: runner)
    }

    @inlinable
    static func make(_ combinator: Combinator<Input, Output, State>, _ index: Int) -> CombinatorObserver {
        CombinatorObserver(combinator, index) { item in
            let observer = unsafeDowncast(item, to: CombinatorObserver.self)
            if let outcome = observer.takeInput() { observer.combinator.receive(observer.index, outcome) }
        }
    }
}
