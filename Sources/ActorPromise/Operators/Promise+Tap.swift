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
        on context: consuming any ExecutionContext = .global,
        fileID: StaticString = #fileID,
        line: UInt = #line,
        _ body: @escaping @Sendable (Result<Value, any Error>) -> Void
    ) -> Promise<Value> {
        let site = PromiseSite(fileID: fileID, line: line, operation: .tap)
        let captured = PromiseTaskLocals.capture(for: site)
        let rare = RareHandoff.of(captured)
        return derive(
            observesCancellation: true, site: site, rare: rare,
            link: .tap(context: context, taskLocals: consume captured, body: body))
    }
}
