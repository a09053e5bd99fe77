extension Promise {
    /// A promise for the first value of any input.
    ///
    /// Fulfilled by the first input to be fulfilled; it then stops waiting for the inputs still
    /// pending, and each one that nobody else waits for cancels itself and its work (B7).
    /// Rejected only when every input is rejected, with an ``AggregateError`` holding all errors in
    /// input order (an empty input is rejected that way at once). Cancelling it (or its last
    /// waiter) stops waiting for every input the same way.
    ///
    /// - Parameters:
    ///   - promises: The inputs.
    ///   - fileID: Where the returned promise is made, for diagnostics (filled in for you).
    ///   - line: The line of that site (filled in for you).
    /// - Returns: The first value, or an ``AggregateError`` of every rejection.
    /// - Complexity: O(*n*) in the number of inputs.
    @inlinable
    public static func any(
        _ promises: some Collection<Promise<Value>>,
        fileID: StaticString = #fileID,
        line: UInt = #line
    ) -> Promise<Value> {
        let inputs = Array(promises)
        if inputs.isEmpty { return Promise(error: AggregateError(errors: []), fileID: fileID, line: line) }
        return Combinator<Value, Value, (errors: [(any Error)?], remaining: Int)>(
            inputs: inputs, state: ([(any Error)?](repeating: nil, count: inputs.count), inputs.count), operation: .anyInput, fileID: fileID, line: line
        ) { state, index, outcome in
            switch outcome {
            case .success(let value):
                return .success(value)
            case .failure(let error):
                state.errors[index] = error
                state.remaining -= 1
                return state.remaining == 0 ? .failure(AggregateError(errors: state.errors.map { $0! })) : nil
            }
        }.start()
    }

    /// A promise that settles like the first input to settle, fulfilled or rejected; it then stops
    /// waiting for the losers, and each one that nobody else waits for cancels itself and its work
    /// (B7). Cancelling it stops waiting for every input the same way. An empty input is rejected
    /// with an empty ``AggregateError`` (a race nobody runs would otherwise never end).
    ///
    /// - Parameters:
    ///   - promises: The inputs.
    ///   - fileID: Where the returned promise is made, for diagnostics (filled in for you).
    ///   - line: The line of that site (filled in for you).
    /// - Returns: The first outcome.
    /// - Complexity: O(*n*) in the number of inputs.
    @inlinable
    public static func race(
        _ promises: some Collection<Promise<Value>>,
        fileID: StaticString = #fileID,
        line: UInt = #line
    ) -> Promise<Value> {
        let inputs = Array(promises)
        if inputs.isEmpty { return Promise(error: AggregateError(errors: []), fileID: fileID, line: line) }
        // The state counts the outcomes seen. (It was `Void`, and ThreadSanitizer once reported the
        // locked write of that empty state as racing with a read in `receive`: a stored property
        // of no size has no address of its own.)
        return Combinator<Value, Value, Int>(inputs: inputs, state: 0, operation: .raceInput, fileID: fileID, line: line) { seen, _, outcome in
            seen += 1
            return outcome
        }.start()
    }
}
