import ActorPromiseExecutors

/// The main-actor forms of the operators that `Promise+MainActor.swift` does not cover: `get`,
/// `validate`, the two-handler `then`, the promise-returning `recover`, and `then(isolatedTo:
/// MainActor.shared)` (R9). Each takes `on: .main` (or the main actor itself) and a `@MainActor`
/// closure, runs as a main-context handler — on the main queue, in registration order with the
/// promise's other main-context handlers — and enters the main actor with
/// `MainActor.assumeIsolated`, which holds there.
extension Promise {
    /// Looks at the value on the main actor and passes it on unchanged; a rejection skips `body`.
    ///
    /// - Parameters:
    ///   - fileID: Where the returned promise is made, for diagnostics (filled in for you).
    ///   - line: The line of that site (filled in for you).
    ///   - context: `.main`.
    ///   - body: Sees the value, isolated to the main actor. A thrown error rejects the result.
    /// - Returns: A promise with this promise's value, after `body` ran; rejected with this
    ///   promise's error (cancellation included) or with what `body` throws.
    @discardableResult
    public func get(
        on context: MainContext,
        fileID: StaticString = #fileID,
        line: UInt = #line,
        _ body: @escaping @MainActor @Sendable (Value) throws -> Void
    ) -> Promise<Value> {
        get(on: context as any ExecutionContext, fileID: fileID, line: line) { value in
            try MainActor.assumeIsolated { try body(value) }
        }
    }

    /// Passes the value on if a main-actor `predicate` accepts it; otherwise rejects with
    /// `error()` (``ValidationError`` by default).
    ///
    /// - Parameters:
    ///   - fileID: Where the returned promise is made, for diagnostics (filled in for you).
    ///   - line: The line of that site (filled in for you).
    ///   - context: `.main`.
    ///   - predicate: The check, isolated to the main actor; a thrown error rejects as well.
    ///   - error: The error for a value that fails the check.
    /// - Returns: A promise with this promise's value, or rejected; a rejection or cancellation of
    ///   this promise skips `predicate` and passes on.
    public func validate(
        on context: MainContext,
        fileID: StaticString = #fileID,
        line: UInt = #line,
        _ predicate: @escaping @MainActor @Sendable (Value) throws -> Bool,
        else error: @escaping @Sendable () -> any Error = { ValidationError() }
    ) -> Promise<Value> {
        validate(on: context as any ExecutionContext, fileID: fileID, line: line, { value in
            try MainActor.assumeIsolated { try predicate(value) }
        }, else: error)
    }

    /// Maps either outcome on the main actor: exactly one of the two handlers runs.
    ///
    /// - Parameters:
    ///   - context: `.main`.
    ///   - fileID: Where the returned promise is made, for diagnostics (filled in for you).
    ///   - line: The line of that site (filled in for you).
    ///   - onFulfilled: Maps the value, isolated to the main actor.
    ///   - onRejected: Maps the error, cancellation included, isolated to the main actor.
    /// - Returns: A promise of the handler's result, or rejected with what it throws. A cancelled
    ///   promise stays cancelled whatever `onRejected` returns (R5b).
    public func then<U: Sendable>(
        on context: MainContext,
        fileID: StaticString = #fileID,
        line: UInt = #line,
        onFulfilled: @escaping @MainActor @Sendable (Value) throws -> U,
        onRejected: @escaping @MainActor @Sendable (any Error) throws -> U
    ) -> Promise<U> {
        then(
            on: context as any ExecutionContext, fileID: fileID, line: line,
            onFulfilled: { value in try MainActor.assumeIsolated { try onFulfilled(value) } },
            onRejected: { error in try MainActor.assumeIsolated { try onRejected(error) } })
    }

    /// Replaces a rejection with a promise a main-actor handler returns, which the result follows.
    ///
    /// - Parameters:
    ///   - context: `.main`.
    ///   - policy: Which rejections `body` sees; ``CatchPolicy/allErrors`` by default.
    ///   - fileID: Where the returned promise is made, for diagnostics (filled in for you).
    ///   - line: The line of that site (filled in for you).
    ///   - body: Maps the error (cancellation included) to a promise to follow, isolated to the
    ///     main actor.
    /// - Returns: A promise with this promise's value, or the followed promise's outcome. A
    ///   cancelled promise stays cancelled whatever `body` returns (R5b).
    @discardableResult
    public func recover(
        on context: MainContext,
        policy: CatchPolicy = .allErrors,
        fileID: StaticString = #fileID,
        line: UInt = #line,
        _ body: @escaping @MainActor @Sendable (any Error) throws -> Promise<Value>
    ) -> Promise<Value> {
        recover(on: context as any ExecutionContext, policy: policy, fileID: fileID, line: line) { error in
            try MainActor.assumeIsolated { try body(error) }
        }
    }

    /// Derives a promise whose handler runs isolated to the main actor, given as the actor
    /// (`then(isolatedTo: MainActor.shared) { _, value in self.count = value }`): the same as
    /// `then(on: .main)`.
    ///
    /// - Parameters:
    ///   - actor: `MainActor.shared`.
    ///   - fileID: Where the returned promise is made, for diagnostics (filled in for you).
    ///   - line: The line of that site (filled in for you).
    ///   - body: Maps the value, isolated to the main actor; it gets the main actor first.
    /// - Returns: A promise of `body`'s result. On rejection or cancellation of this promise,
    ///   `body` is skipped and the result is rejected with the same error.
    @discardableResult
    public func then<U: Sendable>(
        isolatedTo actor: MainActor,
        fileID: StaticString = #fileID,
        line: UInt = #line,
        _ body: @escaping @MainActor @Sendable (MainActor, Value) throws -> U
    ) -> Promise<U> {
        then(on: MainContext.shared as any ExecutionContext, fileID: fileID, line: line) { value in
            try MainActor.assumeIsolated { try body(MainActor.shared, value) }
        }
    }
}
