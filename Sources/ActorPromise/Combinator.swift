import Executors

/// Shared machinery of the collection combinators: a result promise, a lock, and the inputs.
///
/// Each input is observed directly (no derived promise per input); the first observer to decide
/// the outcome settles the result and cancels the inputs still pending. Cancelling the result
/// cancels every input.
final class Combinator<Input: Sendable, Output: Sendable, State>: @unchecked Sendable {
    // Safety (`@unchecked Sendable`): `state` and `isDecided` are guarded by `lock`; the rest is
    // immutable after init.
    private let lock = ConditionLock()
    private var state: State
    private var isDecided = false
    private let inputs: [Promise<Input>]
    let resolver: Resolver<Output>
    let promise: Promise<Output>

    init(inputs: [Promise<Input>], state: State, fileID: StaticString, line: UInt) {
        self.inputs = inputs
        self.state = state
        (promise, resolver) = Promise<Output>.pending(fileID: fileID, line: line)
        let inputs = inputs
        resolver.onCancel { for input in inputs { input.cancel() } }
    }

    /// Observes every input; `step` folds an outcome into the state and may decide the result.
    func start(_ step: @escaping @Sendable (inout State, Int, Outcome<Input>) -> Outcome<Output>?) {
        for (index, input) in inputs.enumerated() {
            input.observe { [self] outcome in receive(index, outcome, step) }
        }
    }

    private func receive(_ index: Int, _ outcome: Outcome<Input>, _ step: (inout State, Int, Outcome<Input>) -> Outcome<Output>?) {
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
