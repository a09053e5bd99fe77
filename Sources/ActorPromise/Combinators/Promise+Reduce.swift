extension Promise {
    /// Folds the inputs' values, in input order, into one result.
    ///
    /// `combine` runs on `context` once per input, as each value becomes available in order. The
    /// first rejection (of an input or of `combine`) rejects the result. Empty input: `initial`.
    ///
    /// - Complexity: O(*n*): two links per input.
    public static func reduce<Result: Sendable>(
        _ promises: some Sequence<Promise<Value>>,
        into initial: Result,
        on context: any ExecutionContext = .inline,
        _ combine: @escaping @Sendable (Result, Value) throws -> Result
    ) -> Promise<Result> {
        var accumulated = Promise<Result>(value: initial)
        for promise in promises {
            accumulated = accumulated.then(on: .inline) { partial in
                promise.then(on: context) { value in try combine(partial, value) }
            }
        }
        return accumulated
    }
}
