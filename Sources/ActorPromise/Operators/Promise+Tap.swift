extension Promise {
    /// Looks at the outcome without changing it.
    ///
    /// `body` runs on `context` with this promise's outcome; the returned promise then settles
    /// with that same outcome. Use it for logging and metrics.
    ///
    /// - Parameters:
    ///   - fileID: Where the returned promise is made, for diagnostics (filled in for you).
    ///   - line: The line of that site (filled in for you).
    ///   - context: Where `body` runs. Defaults to `WorkerPool.global`.
    ///   - body: Observes the outcome.
    /// - Returns: A new promise, a child of this one.
    @inlinable @discardableResult @_disfavoredOverload
    public func tap(
        on context: any ExecutionContext = .global,
        fileID: StaticString = #fileID,
        line: UInt = #line,
        _ body: @escaping @Sendable (Result<Value, any Error>) -> Void
    ) -> Promise<Value> {
        derive(
            observesCancellation: true, site: PromiseSite(fileID: fileID, line: line),
            link: .tap(context: context, taskLocals: PromiseTaskLocals.capture(), body: body))
    }
}

extension Promise {
    /// Calls `body` on `context` with the outcome, without deriving a promise: `tap` for a caller
    /// that chains nothing on it (the bridge's `whenComplete`, B5). `body` runs once, with this
    /// promise's outcome (a cancel that finds it pending included), in registration order with the
    /// promise's handlers (R2) and with the task-local values bound here (R15); it counts as a
    /// dependent that never stops waiting (R7) and takes a rejection (R14). A context that drops it
    /// never calls it; a drop by a stopped context is reported to
    /// ``PromiseDiagnostics/abandonmentHandler``.
    @inlinable
    package func observe(on context: any ExecutionContext, _ body: @escaping @Sendable (Result<Value, any Error>) -> Void) {
        core.observe(ContextCallbackObserver(context: context, taskLocals: PromiseTaskLocals.capture(), body))
    }
}
