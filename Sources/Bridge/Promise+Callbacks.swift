extension Promise {
    /// Calls `body` with the outcome once the promise settles — for callers that take callbacks (B5).
    ///
    /// - Parameters:
    ///   - context: Where `body` runs. Defaults to `WorkerPool.global`.
    ///   - body: Receives the value or the error (cancellation included).
    public func whenComplete(
        on context: any ExecutionContext = .global,
        _ body: @escaping @Sendable (Result<Value, any Error>) -> Void
    ) {
        tap(on: context, body)
    }

    /// Calls `body` in the Objective-C completion style: `(value, nil)` or `(nil, error)` (B5).
    ///
    /// - Parameters:
    ///   - context: Where `body` runs. Defaults to `WorkerPool.global`.
    ///   - body: Receives exactly one of a value or an error.
    public func whenComplete(
        on context: any ExecutionContext = .global,
        _ body: @escaping @Sendable (Value?, (any Error)?) -> Void
    ) {
        tap(on: context) { outcome in
            switch outcome {
            case .success(let value): body(value, nil)
            case .failure(let error): body(nil, error)
            }
        }
    }
}
