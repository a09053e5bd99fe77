/// Runs a value handler: fulfilment → handler → child; rejection skips the handler (R4).
@usableFromInline
final class ThenLink<In: Sendable, Out: Sendable>: Link<In, Out>, @unchecked Sendable {
    @usableFromInline let body: @Sendable (In) throws -> Out

    @usableFromInline
    init(
        child: PromiseCore<Out>, context: any ExecutionContext, taskLocals: CapturedTaskLocals?,
        body: @escaping @Sendable (In) throws -> Out, runner: @escaping @Sendable (WorkItem) -> Void
    ) {
        self.body = body
        super.init(child: child, context: context, taskLocals: taskLocals, runner: runner)
    }

    @inlinable
    static func make(
        child: PromiseCore<Out>, context: any ExecutionContext, taskLocals: CapturedTaskLocals?, body: @escaping @Sendable (In) throws -> Out) -> ThenLink {
        ThenLink(child: child, context: context, taskLocals: taskLocals, body: body) { item in
            let link = unsafeDowncast(item, to: ThenLink.self)
            link.runValueHandler(link.body)
        }
    }
}

/// Runs a handler for its effect: `ThenLink` with a `Void` result, declared apart so that the
/// user's closure is stored as written. Stored in `ThenLink<In, Void>`, whose body returns a
/// generic `Out`, a `() -> Void` closure needs a reabstraction thunk — one more allocation per
/// handler (W2).
@usableFromInline
final class VoidThenLink<In: Sendable>: Link<In, Void>, @unchecked Sendable {
    @usableFromInline let body: @Sendable (In) throws -> Void

    @usableFromInline
    init(
        child: PromiseCore<Void>, context: any ExecutionContext, taskLocals: CapturedTaskLocals?,
        body: @escaping @Sendable (In) throws -> Void, runner: @escaping @Sendable (WorkItem) -> Void
    ) {
        self.body = body
        super.init(child: child, context: context, taskLocals: taskLocals, runner: runner)
    }

    @inlinable
    static func make(
        child: PromiseCore<Void>, context: any ExecutionContext, taskLocals: CapturedTaskLocals?, body: @escaping @Sendable (In) throws -> Void) -> VoidThenLink {
        VoidThenLink(child: child, context: context, taskLocals: taskLocals, body: body) { item in
            let link = unsafeDowncast(item, to: VoidThenLink.self)
            link.runValueHandler { try link.body($0) }
        }
    }
}

/// Runs a handler that returns a promise, which the child then follows (R3, adoption).
@usableFromInline
final class FlatThenLink<In: Sendable, Out: Sendable>: Link<In, Out>, @unchecked Sendable {
    @usableFromInline let body: @Sendable (In) throws -> Promise<Out>

    @usableFromInline
    init(
        child: PromiseCore<Out>, context: any ExecutionContext, taskLocals: CapturedTaskLocals?,
        body: @escaping @Sendable (In) throws -> Promise<Out>, runner: @escaping @Sendable (WorkItem) -> Void
    ) {
        self.body = body
        super.init(child: child, context: context, taskLocals: taskLocals, runner: runner)
    }

    @inlinable
    static func make(
        child: PromiseCore<Out>, context: any ExecutionContext, taskLocals: CapturedTaskLocals?,
        body: @escaping @Sendable (In) throws -> Promise<Out>
    ) -> FlatThenLink {
        FlatThenLink(child: child, context: context, taskLocals: taskLocals, body: body) { item in
            let link = unsafeDowncast(item, to: FlatThenLink.self)
            defer { link.endDelivery() }
            guard let outcome = link.outcomeForRun() else { return }
            switch outcome {
            case .success(let value):
                do { link.child.adopt(try link.body(value).core) } catch { link.finish(.failure(error)) }
            case .failure(let error):
                link.finish(.failure(error))
            }
        }
    }
}

extension Promise {
    /// Derives a promise from this one's value.
    ///
    /// `body` runs once, on `context`, after this promise is fulfilled — never inside this call
    /// (except on `InlineContext`). Its return value fulfils the returned promise; an error it
    /// throws rejects it. If this promise is rejected, `body` is skipped and the returned promise
    /// is rejected with the same error (R4). If the returned promise is cancelled before `body`
    /// starts, `body` never runs.
    ///
    /// - Parameters:
    ///   - fileID: Where the returned promise is made, for diagnostics (filled in for you).
    ///   - line: The line of that site (filled in for you).
    ///   - context: Where `body` runs. Defaults to `WorkerPool.global`.
    ///   - body: Maps the value.
    /// - Returns: A new promise, a child of this one.
    @inlinable @discardableResult @_disfavoredOverload
    public func then<U: Sendable>(
        on context: any ExecutionContext = .global,
        fileID: StaticString = #fileID,
        line: UInt = #line,
        _ body: @escaping @Sendable (Value) throws -> U
    ) -> Promise<U> {
        derive(site: PromiseSite(fileID: fileID, line: line)) { ThenLink.make(child: $0, context: context, taskLocals: $1, body: body) }
    }

    /// Runs a handler for its effect; the same as the value-returning `then` with a `Void` result.
    ///
    /// This overload lets multi-statement handlers that return nothing type-check without
    /// annotations. The returned promise is fulfilled with `()` after `body` returns, or rejected
    /// with what it throws (or with this promise's error, in which case `body` is skipped).
    ///
    /// - Parameters:
    ///   - context: Where the handler runs. Defaults to `WorkerPool.global`.
    ///   - fileID: Where the returned promise is made, for diagnostics (filled in for you).
    ///   - line: The line of that site (filled in for you).
    ///   - body: Runs with the value.
    /// - Returns: A new promise, a child of this one.
    @inlinable @discardableResult @_disfavoredOverload
    public func then(
        on context: any ExecutionContext = .global,
        fileID: StaticString = #fileID,
        line: UInt = #line,
        _ body: @escaping @Sendable (Value) throws -> Void
    ) -> Promise<Void> {
        derive(site: PromiseSite(fileID: fileID, line: line)) { VoidThenLink.make(child: $0, context: context, taskLocals: $1, body: body) }
    }

    /// Derives a promise that follows the promise `body` returns (Promises/A+ §2.3).
    ///
    /// The returned promise settles as the inner promise settles, including when the inner
    /// promise is still pending or rejected. Returning the returned promise itself rejects it with
    /// ``PromiseError/Code/selfResolution``. Cancelling the returned promise while it follows the
    /// inner one counts as lost interest for the inner promise (see
    /// ``pending(tracksInterest:fileID:line:)``): the inner promise cancels itself only if nobody
    /// else waits for it. So does an inner promise returned after the returned promise was
    /// cancelled.
    ///
    /// - Parameters:
    ///   - fileID: Where the returned promise is made, for diagnostics (filled in for you).
    ///   - line: The line of that site (filled in for you).
    ///   - context: Where `body` runs. Defaults to `WorkerPool.global`.
    ///   - body: Starts the next step. A thrown error rejects the returned promise.
    /// - Returns: A new promise, a child of this one.
    @inlinable @discardableResult @_disfavoredOverload
    public func then<U: Sendable>(
        on context: any ExecutionContext = .global,
        fileID: StaticString = #fileID,
        line: UInt = #line,
        _ body: @escaping @Sendable (Value) throws -> Promise<U>
    ) -> Promise<U> {
        derive(site: PromiseSite(fileID: fileID, line: line)) { FlatThenLink.make(child: $0, context: context, taskLocals: $1, body: body) }
    }

    /// Derives a promise with one handler for each outcome.
    ///
    /// Exactly one of the handlers runs, on `context`. Either may return a value (fulfilling the
    /// returned promise) or throw (rejecting it), so `onRejected` can recover from an error or
    /// rethrow it.
    ///
    /// - Parameters:
    ///   - fileID: Where the returned promise is made, for diagnostics (filled in for you).
    ///   - line: The line of that site (filled in for you).
    ///   - context: Where the handler runs. Defaults to `WorkerPool.global`.
    ///   - onFulfilled: Maps the value.
    ///   - onRejected: Maps the error, cancellation included.
    /// - Returns: A new promise, a child of this one.
    @inlinable @discardableResult @_disfavoredOverload
    public func then<U: Sendable>(
        on context: any ExecutionContext = .global,
        fileID: StaticString = #fileID,
        line: UInt = #line,
        onFulfilled: @escaping @Sendable (Value) throws -> U,
        onRejected: @escaping @Sendable (any Error) throws -> U
    ) -> Promise<U> {
        derive(on: context, site: PromiseSite(fileID: fileID, line: line)) { outcome in
            do {
                switch outcome {
                case .success(let value): return .settle(.success(try onFulfilled(value)))
                case .failure(let error): return .settle(.success(try onRejected(error)))
                }
            } catch {
                return .settle(.failure(error))
            }
        }
    }

    /// Maps the value; the same as the value-returning `then`.
    ///
    /// - Parameters:
    ///   - context: Where `transform` runs. Defaults to `WorkerPool.global`.
    ///   - fileID: Where the returned promise is made, for diagnostics (filled in for you).
    ///   - line: The line of that site (filled in for you).
    ///   - transform: Maps the value; a thrown error rejects the returned promise.
    /// - Returns: A new promise, a child of this one; rejected as this one is, skipping `transform`.
    @inlinable @discardableResult @_disfavoredOverload
    public func map<U: Sendable>(
        on context: any ExecutionContext = .global,
        fileID: StaticString = #fileID,
        line: UInt = #line,
        _ transform: @escaping @Sendable (Value) throws -> U
    ) -> Promise<U> {
        derive(site: PromiseSite(fileID: fileID, line: line)) { ThenLink.make(child: $0, context: context, taskLocals: $1, body: transform) }
    }

    /// Maps the value to a promise and follows it; the same as the promise-returning `then`.
    ///
    /// - Parameters:
    ///   - context: Where `transform` runs. Defaults to `WorkerPool.global`.
    ///   - fileID: Where the returned promise is made, for diagnostics (filled in for you).
    ///   - line: The line of that site (filled in for you).
    ///   - transform: Returns the promise to follow.
    /// - Returns: A new promise, a child of this one; rejected as this one is, skipping `transform`.
    @inlinable @discardableResult @_disfavoredOverload
    public func flatMap<U: Sendable>(
        on context: any ExecutionContext = .global,
        fileID: StaticString = #fileID,
        line: UInt = #line,
        _ transform: @escaping @Sendable (Value) throws -> Promise<U>
    ) -> Promise<U> {
        derive(site: PromiseSite(fileID: fileID, line: line)) { FlatThenLink.make(child: $0, context: context, taskLocals: $1, body: transform) }
    }
}
