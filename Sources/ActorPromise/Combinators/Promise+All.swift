extension Promise {
    /// A promise for all the values, in input order.
    ///
    /// Fulfilled when every input is fulfilled. The first rejection (in time) rejects it, and it
    /// stops waiting for the inputs still pending: each one that nobody else waits for cancels
    /// itself and its work (B7). Cancelling it (or its last waiter) does the same for every
    /// input. An empty input is fulfilled with `[]` at once.
    ///
    /// - Parameters:
    ///   - promises: The inputs.
    ///   - progress: Where to report how many inputs are fulfilled (see ``ProgressReporting``);
    ///     silent once the result is rejected or cancelled.
    ///   - fileID: Where the call is (filled in for you).
    ///   - line: The line of that site (filled in for you).
    /// - Returns: The values, or the first rejection.
    /// - Complexity: O(*n*) in the number of inputs.
    @inlinable
    public static func all(
        _ promises: some Collection<Promise<Value>>,
        progress: ProgressReporting? = nil,
        fileID: StaticString = #fileID,
        line: UInt = #line
    ) -> Promise<[Value]> {
        all(promises, progress: progress, operation: .allInput, fileID: fileID, line: line)
    }

    /// ``all(_:progress:fileID:line:)``, whose inputs failure traces name as `operation` (R16).
    @inlinable
    static func all(
        _ promises: some Collection<Promise<Value>>, progress: ProgressReporting?, operation: TraceOperation,
        fileID: StaticString, line: UInt
    ) -> Promise<[Value]> {
        let inputs = Array(promises)
        if inputs.isEmpty { return Promise<[Value]>(value: []) }
        let reporter = progress.map { ProgressReporter(total: inputs.count, reporting: $0) }
        return Combinator<Value, [Value], (values: [Value?], remaining: Int)>(
            inputs: inputs, state: ([Value?](repeating: nil, count: inputs.count), inputs.count), progress: reporter,
            operation: operation, fileID: fileID, line: line
        ) { state, index, outcome in
            switch outcome {
            case .failure(let error):
                return .failure(error)
            case .success(let value):
                reporter?.itemCompleted()
                state.values[index] = value
                state.remaining -= 1
                return state.remaining == 0 ? .success(state.values.map { $0! }) : nil
            }
        }.start()
    }

    /// A promise for every outcome, in input order: it waits for all inputs and never rejects
    /// (except when it is cancelled itself; it then stops waiting for every input, which cancels
    /// each one that nobody else waits for). Empty input: `[]`.
    ///
    /// - Parameters:
    ///   - promises: The inputs.
    ///   - progress: Where to report how many inputs are settled (see ``ProgressReporting``);
    ///     silent once the result is cancelled.
    ///   - fileID: Where the call is (filled in for you).
    ///   - line: The line of that site (filled in for you).
    /// - Returns: Every outcome, in input order.
    /// - Complexity: O(*n*) in the number of inputs.
    @inlinable
    public static func allSettled(
        _ promises: some Collection<Promise<Value>>,
        progress: ProgressReporting? = nil,
        fileID: StaticString = #fileID,
        line: UInt = #line
    ) -> Promise<[Result<Value, any Error>]> {
        let inputs = Array(promises)
        if inputs.isEmpty { return Promise<[Result<Value, any Error>]>(value: []) }
        let reporter = progress.map { ProgressReporter(total: inputs.count, reporting: $0) }
        return Combinator<Value, [Result<Value, any Error>], (outcomes: [Outcome<Value>?], remaining: Int)>(
            inputs: inputs, state: ([Outcome<Value>?](repeating: nil, count: inputs.count), inputs.count), progress: reporter,
            operation: .allSettledInput, fileID: fileID, line: line
        ) { state, index, outcome in
            reporter?.itemCompleted()
            state.outcomes[index] = outcome
            state.remaining -= 1
            return state.remaining == 0 ? .success(state.outcomes.map { $0! }) : nil
        }.start()
    }
}
