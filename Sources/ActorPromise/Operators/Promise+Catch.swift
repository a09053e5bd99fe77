extension Promise {
    /// Handles a rejection at the end of a chain.
    ///
    /// `body` runs on `context` if this promise is rejected (cancellation included); it is skipped
    /// if this promise is fulfilled. The returned promise is fulfilled with `()` once the error
    /// has been handled (or when there was none), and rejected if `body` throws.
    ///
    /// - Parameters:
    ///   - context: Where `body` runs. Defaults to `WorkerPool.global`.
    ///   - body: Handles the error.
    /// - Returns: A new promise, a child of this one.
    @inlinable @discardableResult @_disfavoredOverload
    public func `catch`(
        on context: any ExecutionContext = .global,
        _ body: @escaping @Sendable (any Error) throws -> Void
    ) -> Promise<Void> {
        derive(on: context) { outcome in
            guard case .failure(let error) = outcome else { return .settle(.success(())) }
            do {
                try body(error)
                return .settle(.success(()))
            } catch {
                return .settle(.failure(error))
            }
        }
    }

    /// Handles a rejection by returning a replacement value; the same as
    /// `recover(on:_:)`, for code that spells recovery `catch`.
    ///
    /// A fulfilled value passes through untouched; `body` may rethrow to keep the chain rejected.
    /// (A closure that only throws matches this form: the result is rejected with what it throws,
    /// as with the terminal `catch`.)
    @inlinable @discardableResult
    public func `catch`(
        on context: any ExecutionContext = .global,
        _ body: @escaping @Sendable (any Error) throws -> Value
    ) -> Promise<Value> {
        recover(on: context, body)
    }

    /// Replaces a rejection with a value.
    ///
    /// `body` runs on `context` if this promise is rejected (cancellation included) and returns
    /// the value to continue with, or throws (the same or another error) to keep the chain
    /// rejected. A fulfilled value passes through untouched.
    ///
    /// - Parameters:
    ///   - context: Where `body` runs. Defaults to `WorkerPool.global`.
    ///   - body: Maps the error to a value.
    /// - Returns: A new promise, a child of this one.
    @inlinable @discardableResult @_disfavoredOverload
    public func recover(
        on context: any ExecutionContext = .global,
        _ body: @escaping @Sendable (any Error) throws -> Value
    ) -> Promise<Value> {
        derive(on: context) { outcome in
            guard case .failure(let error) = outcome else { return .settle(outcome) }
            do { return .settle(.success(try body(error))) } catch { return .settle(.failure(error)) }
        }
    }

    /// Replaces a rejection with the outcome of another promise.
    ///
    /// Like `recover(on:_:)`, but `body` returns a promise that the
    /// returned promise follows.
    @inlinable @discardableResult @_disfavoredOverload
    public func recover(
        on context: any ExecutionContext = .global,
        _ body: @escaping @Sendable (any Error) throws -> Promise<Value>
    ) -> Promise<Value> {
        derive(on: context) { outcome in
            guard case .failure(let error) = outcome else { return .settle(outcome) }
            do { return .follow(try body(error)) } catch { return .settle(.failure(error)) }
        }
    }
}
