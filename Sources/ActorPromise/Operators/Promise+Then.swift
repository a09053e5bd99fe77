// The value links take their context `consuming` (it moves into the link) but their handler
// borrowed, and the operators hand their task-local capture over with `consume`: both written
// this way to keep an allocation and the runtime's slow-path retains off each link (see
// Benchmarks/README.md, *Why the core looks like this*).
/// A handler that returns a promise to follow (R3).
@usableFromInline struct FlatBody<In, Out: Sendable> {
    @usableFromInline let run: @Sendable (In) throws -> Promise<Out>
    @inlinable init(_ run: @escaping @Sendable (In) throws -> Promise<Out>) { self.run = run }
}

extension Link {
    /// Runs a value handler: fulfilment → handler → child; rejection skips the handler (R4).
    @inlinable
    static func then<In: Sendable, Out: Sendable>(
        context: consuming any ExecutionContext, taskLocals: CapturedTaskLocals?, body: @escaping @Sendable (In) throws -> Out
    ) -> Link {
        Link(context: context, taskLocals: taskLocals, body: ErasedClosure(ThenBody(body)), runnerFor: Out.self) { promise in
            promise.runHandler(In.self, as: ThenBody<In, Out>.self) { child, body in
                child.runValueHandler(In.self, body.run)
            }
        }
    }

    /// Runs a handler that returns a promise, which the child then follows (R3, adoption).
    @inlinable
    static func flatThen<In: Sendable, Out: Sendable>(
        context: consuming any ExecutionContext, taskLocals: CapturedTaskLocals?, body: @escaping @Sendable (In) throws -> Promise<Out>
    ) -> Link {
        Link(context: context, taskLocals: taskLocals, body: ErasedClosure(FlatBody(body)), runnerFor: Out.self) { promise in
            promise.runHandler(In.self, as: FlatBody<In, Out>.self) { child, body in
                guard let outcome = child.outcomeForRun(In.self) else { return }
                switch outcome {
                case .success(let value):
                    do { child.adopt(try body.run(value).core) } catch { child.settle(.failure(error)) }
                case .failure(let error):
                    child.settle(.failure(error))
                }
            }
        }
    }

    /// Runs a handler for its effect: ``then(context:taskLocals:body:)`` with a `Void` result,
    /// whose closure is stored as written (see ``VoidBody``).
    @inlinable
    static func voidThen<In: Sendable>(
        context: consuming any ExecutionContext, taskLocals: CapturedTaskLocals?, body: @escaping @Sendable (In) throws -> Void
    ) -> Link {
        Link(context: context, taskLocals: taskLocals, body: ErasedClosure(VoidBody(body)), runnerFor: Void.self) { promise in
            promise.runHandler(In.self, as: VoidBody<In>.self) { child, body in
                child.runValueHandler(In.self) { try body.run($0) }
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
        on context: consuming any ExecutionContext = .global,
        fileID: StaticString = #fileID,
        line: UInt = #line,
        _ body: consuming @escaping @Sendable (Value) throws -> U
    ) -> Promise<U> {
        let site = PromiseSite(fileID: fileID, line: line, operation: .then)
        let captured = PromiseTaskLocals.capture(for: site)
        let rare = RareHandoff.of(captured)
        return derive(
            site: site, rare: rare,
            link: .then(context: context, taskLocals: consume captured, body: body))
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
    @inlinable @inline(__always) @discardableResult @_disfavoredOverload
    public func then(
        on context: consuming any ExecutionContext = .global,
        fileID: StaticString = #fileID,
        line: UInt = #line,
        _ body: consuming @escaping @Sendable (Value) throws -> Void
    ) -> Promise<Void> {
        let site = PromiseSite(fileID: fileID, line: line, operation: .then)
        let captured = PromiseTaskLocals.capture(for: site)
        let rare = RareHandoff.of(captured)
        return derive(
            site: site, rare: rare,
            link: .voidThen(context: context, taskLocals: consume captured, body: body))
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
        on context: consuming any ExecutionContext = .global,
        fileID: StaticString = #fileID,
        line: UInt = #line,
        _ body: consuming @escaping @Sendable (Value) throws -> Promise<U>
    ) -> Promise<U> {
        let site = PromiseSite(fileID: fileID, line: line, operation: .then)
        let captured = PromiseTaskLocals.capture(for: site)
        let rare = RareHandoff.of(captured)
        return derive(
            site: site, rare: rare,
            link: .flatThen(context: context, taskLocals: consume captured, body: body))
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
        on context: consuming any ExecutionContext = .global,
        fileID: StaticString = #fileID,
        line: UInt = #line,
        onFulfilled: @escaping @Sendable (Value) throws -> U,
        onRejected: @escaping @Sendable (any Error) throws -> U
    ) -> Promise<U> {
        derive(on: context, site: PromiseSite(fileID: fileID, line: line, operation: .then)) { outcome in
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
        on context: consuming any ExecutionContext = .global,
        fileID: StaticString = #fileID,
        line: UInt = #line,
        _ transform: consuming @escaping @Sendable (Value) throws -> U
    ) -> Promise<U> {
        let site = PromiseSite(fileID: fileID, line: line, operation: .map)
        let captured = PromiseTaskLocals.capture(for: site)
        let rare = RareHandoff.of(captured)
        return derive(
            site: site, rare: rare,
            link: .then(context: context, taskLocals: consume captured, body: transform))
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
        on context: consuming any ExecutionContext = .global,
        fileID: StaticString = #fileID,
        line: UInt = #line,
        _ transform: consuming @escaping @Sendable (Value) throws -> Promise<U>
    ) -> Promise<U> {
        let site = PromiseSite(fileID: fileID, line: line, operation: .flatMap)
        let captured = PromiseTaskLocals.capture(for: site)
        let rare = RareHandoff.of(captured)
        return derive(
            site: site, rare: rare,
            link: .flatThen(context: context, taskLocals: consume captured, body: transform))
    }
}
