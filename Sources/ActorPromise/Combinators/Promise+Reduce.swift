extension Promise {
    /// Folds the inputs' values, in input order, into one result.
    ///
    /// `combine` runs on `context` once per input, as each value becomes available in order. The
    /// first rejection (of an input or of `combine`) rejects the result. Empty input: `initial`.
    ///
    /// - Parameters:
    ///   - promises: The inputs.
    ///   - initial: The result before the first value.
    ///   - context: Where `combine` runs. Defaults to `.inline`.
    ///   - fileID: Where the returned promise is made, for diagnostics (filled in for you).
    ///   - line: The line of that site (filled in for you).
    ///   - combine: Folds one value into the result; a thrown error rejects the result.
    /// - Returns: The folded result, or the first rejection.
    /// - Complexity: O(*n*): two links per input.
    @_disfavoredOverload
    public static func reduce<Result: Sendable>(
        _ promises: some Sequence<Promise<Value>>,
        into initial: Result,
        on context: any ExecutionContext = .inline,
        fileID: StaticString = #fileID,
        line: UInt = #line,
        _ combine: @escaping @Sendable (Result, Value) throws -> Result
    ) -> Promise<Result> {
        var accumulated = Promise<Result>(value: initial, fileID: fileID, line: line)
        for promise in promises {
            accumulated = accumulated.then(on: .inline, fileID: fileID, line: line) { partial in
                // Through a branch: `reduce` observes its inputs, so a late cancel of a settled
                // input does not reach the step.
                promise.branch().then(on: context) { value in try combine(partial, value) }
            }
        }
        return accumulated
    }
}

extension Promise {
    /// Folds the inputs' values in input order with a main-actor `combine` (R9).
    ///
    /// - Parameters:
    ///   - promises: The inputs.
    ///   - initial: The result before the first value.
    ///   - context: `.main`.
    ///   - fileID: Where the returned promise is made, for diagnostics (filled in for you).
    ///   - line: The line of that site (filled in for you).
    ///   - combine: Folds one value into the result, isolated to the main actor; a thrown error
    ///     rejects the result.
    /// - Returns: The folded result, or the first rejection (cancellation included).
    public static func reduce<Result: Sendable>(
        _ promises: some Sequence<Promise<Value>>,
        into initial: Result,
        on context: MainContext,
        fileID: StaticString = #fileID,
        line: UInt = #line,
        _ combine: @escaping @MainActor @Sendable (Result, Value) throws -> Result
    ) -> Promise<Result> {
        reduce(promises, into: initial, on: context as any ExecutionContext, fileID: fileID, line: line) { partial, value in
            try MainActor.assumeIsolated { try combine(partial, value) }
        }
    }
}
