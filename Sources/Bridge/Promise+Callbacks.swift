extension Promise {
    /// Calls `body` with the outcome once the promise settles — for callers that take callbacks (B5).
    ///
    /// `body` is called exactly once, with the outcome this promise settled with: a cancel that
    /// reaches the promise after it settled changes nothing `body` reports, even while `body`
    /// still waits in `context`'s queue; a cancel that finds it pending reports the cancellation
    /// error. A context that is told not to run `body` (a stopped run-loop thread, a cancelled
    /// operation) never calls it: the Execution contexts article lists each case.
    ///
    /// - Parameters:
    ///   - context: Where `body` runs. Defaults to `WorkerPool.global`.
    ///   - body: Receives the value or the error (cancellation included).
    @_disfavoredOverload
    public func whenComplete(
        on context: consuming any ExecutionContext = .global,
        _ body: consuming @escaping @Sendable (Result<Value, any Error>) -> Void
    ) {
        observe(on: context, body)
    }

    /// Calls `body` in the Objective-C completion style: `(value, nil)` or `(nil, error)` (B5).
    ///
    /// - Parameters:
    ///   - context: Where `body` runs. Defaults to `WorkerPool.global`.
    ///   - body: Receives exactly one of a value or an error.
    @_disfavoredOverload
    public func whenComplete(
        on context: consuming any ExecutionContext = .global,
        _ body: @escaping @Sendable (Value?, (any Error)?) -> Void
    ) {
        observe(on: context) { outcome in
            switch outcome {
            case .success(let value): body(value, nil)
            case .failure(let error): body(nil, error)
            }
        }
    }
}

extension Promise {
    /// Calls a main-actor `body` with the outcome, exactly once, cancellation included (B5, R9).
    ///
    /// - Parameters:
    ///   - context: `.main`.
    ///   - body: Receives the value or the error (``PromiseError/Code/cancelled`` if the promise
    ///     was cancelled), isolated to the main actor.
    public func whenComplete(
        on context: MainContext,
        _ body: @escaping @MainActor @Sendable (Result<Value, any Error>) -> Void
    ) {
        observe(on: context as any ExecutionContext) { result in MainActor.assumeIsolated { body(result) } }
    }

    /// Calls a main-actor `body` in the Objective-C completion style, exactly once, cancellation
    /// included (B5, R9).
    ///
    /// - Parameters:
    ///   - context: `.main`.
    ///   - body: Receives exactly one of a value or an error (``PromiseError/Code/cancelled`` if
    ///     the promise was cancelled), isolated to the main actor.
    public func whenComplete(
        on context: MainContext,
        _ body: @escaping @MainActor @Sendable (Value?, (any Error)?) -> Void
    ) {
        whenComplete(on: context as any ExecutionContext) { (value: Value?, error: (any Error)?) in
            MainActor.assumeIsolated { body(value, error) }
        }
    }
}
