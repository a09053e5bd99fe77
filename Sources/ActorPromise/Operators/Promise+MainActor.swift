import ActorPromiseExecutors

/// Handlers isolated to the main actor (R9): `promise.then(on: .main) { value in self.title = … }`
/// type-checks in `@MainActor` code and runs on the main actor, with no `Task` per handler.
///
/// Each overload takes `on: MainContext`, so `.main` selects it and the closure is inferred (or
/// written) `@MainActor`. The handler runs as a main-context handler — on the main queue, in
/// registration order with the promise's other main-context handlers — and enters the main actor
/// with `MainActor.assumeIsolated`, which holds there. Handlers run only where you ask: there is
/// no implicit inheritance of the caller's isolation; a handler without `on:` runs on the pool.
///
/// Every operator that takes a handler has such an overload, and the general ones (taking
/// `any ExecutionContext`) are disfavored, so the unannotated form compiles on a `Promise<Void>`
/// as on any other: `done.catch(on: .main) { error in self.title = "…" }`.
extension Promise {
    /// Derives a promise from this one's value with a main-actor handler.
    ///
    /// - Parameters:
    ///   - fileID: Where the returned promise is made, for diagnostics (filled in for you).
    ///   - line: The line of that site (filled in for you).
    ///   - context: `.main`.
    ///   - body: Maps the value, isolated to the main actor. A thrown error rejects the result.
    /// - Returns: A promise of `body`'s result. On rejection or cancellation of this promise,
    ///   `body` is skipped and the result is rejected with the same error.
    @discardableResult
    public func then<U: Sendable>(
        on context: MainContext,
        fileID: StaticString = #fileID,
        line: UInt = #line,
        _ body: @escaping @MainActor @Sendable (Value) throws -> U
    ) -> Promise<U> {
        then(on: context as any ExecutionContext, fileID: fileID, line: line) { value in try MainActor.assumeIsolated { try body(value) } }
    }

    /// Runs a main-actor handler for its effect; see ``then(on:fileID:line:_:)-(MainContext,_,_,_)``.
    ///
    /// - Parameters:
    ///   - fileID: Where the returned promise is made, for diagnostics (filled in for you).
    ///   - line: The line of that site (filled in for you).
    ///   - context: `.main`.
    ///   - body: Uses the value, isolated to the main actor.
    /// - Returns: A promise fulfilled with `()` after `body` returns, or rejected with what it
    ///   throws or with this promise's error (cancellation included), in which case `body` is
    ///   skipped.
    @discardableResult
    public func then(
        on context: MainContext,
        fileID: StaticString = #fileID,
        line: UInt = #line,
        _ body: @escaping @MainActor @Sendable (Value) throws -> Void
    ) -> Promise<Void> {
        then(on: context as any ExecutionContext, fileID: fileID, line: line) { value in try MainActor.assumeIsolated { try body(value) } }
    }

    /// Follows the promise a main-actor handler returns.
    ///
    /// - Parameters:
    ///   - fileID: Where the returned promise is made, for diagnostics (filled in for you).
    ///   - line: The line of that site (filled in for you).
    ///   - context: `.main`.
    ///   - body: Starts the next step, isolated to the main actor.
    /// - Returns: A promise that settles as the returned promise does; see the promise-returning
    ///   `then(on:_:)` for cancellation.
    @discardableResult
    public func then<U: Sendable>(
        on context: MainContext,
        fileID: StaticString = #fileID,
        line: UInt = #line,
        _ body: @escaping @MainActor @Sendable (Value) throws -> Promise<U>
    ) -> Promise<U> {
        then(on: context as any ExecutionContext, fileID: fileID, line: line) { value in try MainActor.assumeIsolated { try body(value) } }
    }

    /// Handles a rejection on the main actor, cancellation included (R5b), and ends the chain.
    ///
    /// - Parameters:
    ///   - fileID: Where the returned promise is made, for diagnostics (filled in for you).
    ///   - line: The line of that site (filled in for you).
    ///   - context: `.main`.
    ///   - policy: Which rejections `body` sees; ``CatchPolicy/allErrorsExceptCancellation`` skips
    ///     cancellation, which then passes on to the returned promise.
    ///   - body: Sees the error, isolated to the main actor; may throw another.
    /// - Returns: A promise fulfilled with `()` once handled, or if this promise was fulfilled.
    @discardableResult
    public func `catch`(
        on context: MainContext,
        policy: CatchPolicy = .allErrors,
        fileID: StaticString = #fileID,
        line: UInt = #line,
        _ body: @escaping @MainActor @Sendable (any Error) throws -> Void
    ) -> Promise<Void> {
        self.catch(on: context as any ExecutionContext, policy: policy, fileID: fileID, line: line) { error in
            try MainActor.assumeIsolated { try body(error) }
        }
    }

    /// Recovers from a rejection with a value computed on the main actor.
    ///
    /// - Parameters:
    ///   - fileID: Where the returned promise is made, for diagnostics (filled in for you).
    ///   - line: The line of that site (filled in for you).
    ///   - context: `.main`.
    ///   - policy: Which rejections `body` sees; ``CatchPolicy/allErrors`` by default.
    ///   - body: Maps the error (cancellation included) to a value, isolated to the main actor.
    /// - Returns: A promise with this promise's value, or `body`'s. A cancelled promise stays
    ///   cancelled whatever `body` returns (R5b).
    @discardableResult
    public func recover(
        on context: MainContext,
        policy: CatchPolicy = .allErrors,
        fileID: StaticString = #fileID,
        line: UInt = #line,
        _ body: @escaping @MainActor @Sendable (any Error) throws -> Value
    ) -> Promise<Value> {
        recover(on: context as any ExecutionContext, policy: policy, fileID: fileID, line: line) { error in
            try MainActor.assumeIsolated { try body(error) }
        }
    }

    /// Runs a main-actor clean-up on either outcome, cancellation included, and passes the outcome on.
    ///
    /// - Parameters:
    ///   - fileID: Where the returned promise is made, for diagnostics (filled in for you).
    ///   - line: The line of that site (filled in for you).
    ///   - context: `.main`.
    ///   - body: The clean-up, isolated to the main actor.
    /// - Returns: A promise that settles as this one did, after `body` ran.
    @discardableResult
    public func ensure(
        on context: MainContext,
        fileID: StaticString = #fileID,
        line: UInt = #line,
        _ body: @escaping @MainActor @Sendable () -> Void
    ) -> Promise<Value> {
        ensure(on: context as any ExecutionContext, fileID: fileID, line: line) { MainActor.assumeIsolated { body() } }
    }

    /// Looks at the outcome on the main actor, cancellation included, and passes it on.
    ///
    /// - Parameters:
    ///   - fileID: Where the returned promise is made, for diagnostics (filled in for you).
    ///   - line: The line of that site (filled in for you).
    ///   - context: `.main`.
    ///   - body: Sees the outcome, isolated to the main actor.
    /// - Returns: A promise that settles as this one did, after `body` ran.
    @discardableResult
    public func tap(
        on context: MainContext,
        fileID: StaticString = #fileID,
        line: UInt = #line,
        _ body: @escaping @MainActor @Sendable (Result<Value, any Error>) -> Void
    ) -> Promise<Value> {
        tap(on: context as any ExecutionContext, fileID: fileID, line: line) { result in MainActor.assumeIsolated { body(result) } }
    }

    /// Maps the value on the main actor; the same as the value-returning `then(on:_:)`.
    ///
    /// - Parameters:
    ///   - fileID: Where the returned promise is made, for diagnostics (filled in for you).
    ///   - line: The line of that site (filled in for you).
    ///   - context: `.main`.
    ///   - transform: Maps the value, isolated to the main actor; a thrown error rejects the result.
    /// - Returns: A new promise, a child of this one; rejected as this one is, skipping `transform`.
    @discardableResult
    public func map<U: Sendable>(
        on context: MainContext,
        fileID: StaticString = #fileID,
        line: UInt = #line,
        _ transform: @escaping @MainActor @Sendable (Value) throws -> U
    ) -> Promise<U> {
        map(on: context as any ExecutionContext, fileID: fileID, line: line) { value in try MainActor.assumeIsolated { try transform(value) } }
    }

    /// Maps the value to a promise on the main actor and follows it.
    ///
    /// - Parameters:
    ///   - fileID: Where the returned promise is made, for diagnostics (filled in for you).
    ///   - line: The line of that site (filled in for you).
    ///   - context: `.main`.
    ///   - transform: Returns the promise to follow, isolated to the main actor.
    /// - Returns: A new promise, a child of this one; rejected as this one is, skipping `transform`.
    @discardableResult
    public func flatMap<U: Sendable>(
        on context: MainContext,
        fileID: StaticString = #fileID,
        line: UInt = #line,
        _ transform: @escaping @MainActor @Sendable (Value) throws -> Promise<U>
    ) -> Promise<U> {
        flatMap(on: context as any ExecutionContext, fileID: fileID, line: line) { value in try MainActor.assumeIsolated { try transform(value) } }
    }

    /// Starts asynchronous clean-up on the main actor whichever way this promise settles, and
    /// waits for it before the chain continues (R12).
    ///
    /// - Parameters:
    ///   - fileID: Where the returned promise is made, for diagnostics (filled in for you).
    ///   - line: The line of that site (filled in for you).
    ///   - context: `.main`.
    ///   - body: Starts the clean-up, isolated to the main actor, and returns its promise.
    /// - Returns: A promise with this promise's outcome, or the clean-up's error if it failed.
    @discardableResult
    public func ensureThen(
        on context: MainContext,
        fileID: StaticString = #fileID,
        line: UInt = #line,
        _ body: @escaping @MainActor @Sendable () throws -> Promise<Void>
    ) -> Promise<Value> {
        ensureThen(on: context as any ExecutionContext, fileID: fileID, line: line) { try MainActor.assumeIsolated { try body() } }
    }
}
