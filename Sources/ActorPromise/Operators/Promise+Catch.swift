extension Promise {
    /// Handles a rejection at the end of a chain.
    ///
    /// `body` runs on `context` if this promise is rejected (cancellation included, unless
    /// `policy` says otherwise); it is skipped if this promise is fulfilled. The returned promise
    /// is fulfilled with `()` once the error has been handled (or when there was none), rejected if
    /// `body` throws, and rejected with the cancellation error when `policy` skipped it.
    ///
    /// - Parameters:
    ///   - fileID: Where the returned promise is made, for diagnostics (filled in for you).
    ///   - line: The line of that site (filled in for you).
    ///   - context: Where `body` runs. Defaults to `WorkerPool.global`.
    ///   - policy: Which rejections `body` sees; ``CatchPolicy/allErrors`` by default.
    ///   - body: Handles the error.
    /// - Returns: A new promise, a child of this one.
    @inlinable @discardableResult @_disfavoredOverload
    public func `catch`(
        on context: consuming any ExecutionContext = .global,
        policy: CatchPolicy = .allErrors,
        fileID: StaticString = #fileID,
        line: UInt = #line,
        _ body: @escaping @Sendable (any Error) throws -> Void
    ) -> Promise<Void> {
        let site = PromiseSite(fileID: fileID, line: line, operation: .`catch`)
        let captured = PromiseTaskLocals.capture(for: site)
        let rare = RareHandoff.of(captured)
        return derive(
            observesCancellation: true, site: site, rare: rare,
            link: .catch(context: context, taskLocals: consume captured, policy: policy, in: Value.self, body: body))
    }

    /// Replaces a rejection with a value.
    ///
    /// `body` runs on `context` if this promise is rejected (cancellation included, unless
    /// `policy` says otherwise) and returns the value to continue with, or throws (the same or
    /// another error) to keep the chain rejected. A fulfilled value, and a cancellation that
    /// `policy` skips, pass through untouched.
    ///
    /// - Parameters:
    ///   - fileID: Where the returned promise is made, for diagnostics (filled in for you).
    ///   - line: The line of that site (filled in for you).
    ///   - context: Where `body` runs. Defaults to `WorkerPool.global`.
    ///   - policy: Which rejections `body` sees; ``CatchPolicy/allErrors`` by default.
    ///   - body: Maps the error to a value.
    /// - Returns: A new promise, a child of this one.
    @inlinable @discardableResult @_disfavoredOverload
    public func recover(
        on context: consuming any ExecutionContext = .global,
        policy: CatchPolicy = .allErrors,
        fileID: StaticString = #fileID,
        line: UInt = #line,
        _ body: @escaping @Sendable (any Error) throws -> Value
    ) -> Promise<Value> {
        let site = PromiseSite(fileID: fileID, line: line, operation: .recover)
        let captured = PromiseTaskLocals.capture(for: site)
        let rare = RareHandoff.of(captured)
        return derive(
            observesCancellation: true, site: site, rare: rare,
            link: .recover(context: context, taskLocals: consume captured, policy: policy, body: body))
    }

    /// Replaces a rejection with the outcome of another promise.
    ///
    /// Like `recover(on:policy:_:)`, but `body` returns a promise that the
    /// returned promise follows.
    ///
    /// - Parameters:
    ///   - fileID: Where the returned promise is made, for diagnostics (filled in for you).
    ///   - line: The line of that site (filled in for you).
    ///   - context: Where `body` runs. Defaults to `WorkerPool.global`.
    ///   - policy: Which rejections `body` sees; ``CatchPolicy/allErrors`` by default.
    ///   - body: Maps the error to a promise to follow.
    /// - Returns: A new promise, a child of this one.
    @inlinable @discardableResult @_disfavoredOverload
    public func recover(
        on context: consuming any ExecutionContext = .global,
        policy: CatchPolicy = .allErrors,
        fileID: StaticString = #fileID,
        line: UInt = #line,
        _ body: @escaping @Sendable (any Error) throws -> Promise<Value>
    ) -> Promise<Value> {
        let site = PromiseSite(fileID: fileID, line: line, operation: .recover)
        let captured = PromiseTaskLocals.capture(for: site)
        let rare = RareHandoff.of(captured)
        return derive(
            observesCancellation: true, site: site, rare: rare,
            link: .flatRecover(context: context, taskLocals: consume captured, policy: policy, body: body))
    }
}

/// `recover` to a promise.
@usableFromInline struct FlatErrorBody<Out: Sendable> {
    @usableFromInline let run: @Sendable (any Error) throws -> Promise<Out>
    @inlinable init(_ run: @escaping @Sendable (any Error) throws -> Promise<Out>) { self.run = run }
}

extension Link {
    /// Makes the child follow `body`'s promise for a rejection that `policy` handles.
    @inlinable
    static func flatRecover<Out: Sendable>(
        context: consuming any ExecutionContext, taskLocals: CapturedTaskLocals?, policy: CatchPolicy,
        body: consuming @escaping @Sendable (any Error) throws -> Promise<Out>
    ) -> Link {
        Link(
            context: context, taskLocals: taskLocals, body: ErasedClosure(FlatErrorBody(body)), policy: policy,
            allErrors: { runFlatRecover($0, Out.self, .allErrors) },
            exceptCancellation: { runFlatRecover($0, Out.self, .allErrorsExceptCancellation) })
    }

    @inlinable @inline(__always)
    static func runFlatRecover<Out: Sendable>(_ object: AnyObject, _: Out.Type, _ policy: CatchPolicy) {
        runRecovery(object, policy, as: FlatErrorBody<Out>.self) { body, error in .follow(try body.run(error).core) }
    }
}
