extension Promise {
    /// Runs `body` whichever way this promise settles, then passes the outcome on (R12).
    ///
    /// The returned promise settles with this promise's value or error once `body` has returned.
    ///
    /// - Parameters:
    ///   - fileID: Where the returned promise is made, for diagnostics (filled in for you).
    ///   - line: The line of that site (filled in for you).
    ///   - context: Where `body` runs. Defaults to `WorkerPool.global`.
    ///   - body: Clean-up work.
    /// - Returns: A new promise, a child of this one.
    @inlinable @discardableResult @_disfavoredOverload
    public func ensure(
        on context: consuming any ExecutionContext = .global,
        fileID: StaticString = #fileID,
        line: UInt = #line,
        _ body: @escaping @Sendable () -> Void
    ) -> Promise<Value> {
        let site = PromiseSite(fileID: fileID, line: line, operation: .ensure)
        let captured = PromiseTaskLocals.capture(for: site)
        let rare = RareHandoff.of(captured)
        return derive(
            observesCancellation: true, site: site, rare: rare,
            link: .ensure(context: context, taskLocals: consume captured, in: Value.self, body: body))
    }

    /// Runs asynchronous clean-up whichever way this promise settles, and waits for it before the
    /// chain continues (R12).
    ///
    /// The returned promise settles with this promise's outcome once the clean-up promise is
    /// fulfilled. If the clean-up is rejected (or `body` throws), the returned promise is rejected
    /// with the clean-up's error instead, even if this promise was fulfilled.
    ///
    /// - Parameters:
    ///   - fileID: Where the returned promise is made, for diagnostics (filled in for you).
    ///   - line: The line of that site (filled in for you).
    ///   - context: Where `body` runs. Defaults to `WorkerPool.global`.
    ///   - body: Starts the clean-up and returns a promise for its completion.
    /// - Returns: A new promise, a child of this one.
    @inlinable @discardableResult @_disfavoredOverload
    public func ensureThen(
        on context: consuming any ExecutionContext = .global,
        fileID: StaticString = #fileID,
        line: UInt = #line,
        _ body: @escaping @Sendable () throws -> Promise<Void>
    ) -> Promise<Value> {
        derive(on: context, site: PromiseSite(fileID: fileID, line: line, operation: .ensureThen)) { outcome in
            do {
                return .follow(try body().then(on: .inline) { _ in try outcome.get() }.core)
            } catch {
                return .settle(.failure(error))
            }
        }
    }
}
