extension Promise {
    /// Derives a promise whose handler runs isolated to `actor` — the Swift form of "run on that
    /// object's private queue" (R9).
    ///
    /// The handler gets the actor as an `isolated` parameter, so it can use the actor's state
    /// synchronously. If this promise is rejected (cancellation included), the handler is skipped
    /// and the error passes on. How the handler reaches the actor depends on what the library
    /// knows of the actor's executor:
    /// - **The main actor** (`MainActor.shared`) and **a ``ContextIsolatedActor``** (an actor on a
    ///   `SerialQueue` or `RunLoopThread` that names it): the handler runs on that context
    ///   directly and enters the actor with `assumeIsolated` — no `Task`, and handlers of one
    ///   promise run in registration order (R2).
    /// - **Any other actor** (a default actor, or one whose executor the library cannot see): the
    ///   handler runs in a task that hops to the actor. Order among such handlers is up to Swift's
    ///   scheduler.
    ///
    /// Cancelling the returned promise before the handler starts skips it (and cancels its task,
    /// if it has one).
    ///
    /// - Parameters:
    ///   - fileID: Where the returned promise is made, for diagnostics (filled in for you).
    ///   - line: The line of that site (filled in for you).
    ///   - actor: The actor to isolate the handler to.
    ///   - body: Maps the value, isolated to `actor`. A thrown error rejects the returned promise.
    /// - Returns: A new promise, a child of this one.
    @discardableResult
    public func then<A: Actor, U: Sendable>(
        isolatedTo actor: A,
        fileID: StaticString = #fileID,
        line: UInt = #line,
        _ body: @escaping @Sendable (isolated A, Value) throws -> U
    ) -> Promise<U> {
        if let context = Self.directContext(of: actor) {
            return then(on: context, fileID: fileID, line: line) { value in try actor.assumeIsolated { actor in try body(actor, value) } }
        }
        return then(on: .inline, fileID: fileID, line: line) { value -> Promise<U> in
            let (promise, resolver) = Promise<U>.pending(fileID: fileID, line: line)
            let task = Task {
                guard !resolver.isCancelled else { return }
                do {
                    resolver.fulfill(try await Self.call(body, isolatedTo: actor, with: value))
                } catch {
                    resolver.reject(error, cause: .threw)
                }
            }
            resolver.onCancel { task.cancel() }
            return promise
        }
    }

    /// The context an actor's jobs run on, when the library knows it.
    private static func directContext(of actor: some Actor) -> (any ExecutionContext)? {
        if let bound = actor as? any ContextIsolatedActor { return bound.executionContext }
        if (actor as AnyObject) === MainActor.shared { return MainContext.shared }
        return nil
    }

    private static func call<A: Actor, U>(
        _ body: @Sendable (isolated A, Value) throws -> U, isolatedTo actor: isolated A, with value: Value
    ) throws -> U {
        try body(actor, value)
    }
}
