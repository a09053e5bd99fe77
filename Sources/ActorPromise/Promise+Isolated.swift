extension Promise {
    /// Derives a promise whose handler runs isolated to `actor` — the Swift form of "run on that
    /// object's private queue" (R9).
    ///
    /// The handler gets the actor as an `isolated` parameter, so it can use the actor's state
    /// synchronously. It runs in a task that hops to the actor once this promise is fulfilled; if
    /// this promise is rejected, the handler is skipped and the error passes on. Handlers for the
    /// same actor start in registration order only if the actor runs on a serial context of this
    /// library (a `SerialQueue` or `RunLoopThread` as its executor); for default actors the
    /// order of hops is up to Swift's scheduler.
    ///
    /// Cancelling the returned promise before the handler starts skips it, and cancels its task.
    ///
    /// - Parameters:
    ///   - actor: The actor to isolate the handler to.
    ///   - body: Maps the value, isolated to `actor`. A thrown error rejects the returned promise.
    /// - Returns: A new promise, a child of this one.
    @discardableResult
    public func then<A: Actor, U: Sendable>(
        isolatedTo actor: A,
        _ body: @escaping @Sendable (isolated A, Value) throws -> U
    ) -> Promise<U> {
        then(on: .inline) { value -> Promise<U> in
            let (promise, resolver) = Promise<U>.pending()
            let task = Task {
                guard !resolver.isCancelled else { return }
                do {
                    resolver.fulfill(try await Self.call(body, isolatedTo: actor, with: value))
                } catch {
                    resolver.reject(error)
                }
            }
            resolver.onCancel { task.cancel() }
            return promise
        }
    }

    private static func call<A: Actor, U>(
        _ body: @Sendable (isolated A, Value) throws -> U, isolatedTo actor: isolated A, with value: Value
    ) throws -> U {
        try body(actor, value)
    }
}
