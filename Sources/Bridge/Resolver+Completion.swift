
extension Resolver {
    /// A completion handler of the `(Result<Value, E>) -> Void` shape that settles the promise (B4).
    ///
    /// Hand it to a callback-based API: the error type is inferred from the API's parameter
    /// (`Result<Data, FeedError>` gives `E == FeedError`). A second call is ignored; if the API
    /// drops the handler without calling it, the resolver it captures goes away and the promise is
    /// rejected with ``PromiseError/Code/abandoned`` — no hang. The handler is not isolated to any
    /// actor, so an API may call it on any thread, from any code (B8).
    ///
    /// - Parameter errorType: The API's error type; inferred where the handler is passed.
    /// - Returns: The handler.
    public func completion<E: Error>(_ errorType: E.Type = E.self) -> @Sendable (Result<Value, E>) -> Void {
        let outside = outsideCallback()
        return { [self] result in Self.deliver(outside) { self.resolve(result) } }
    }

    /// A completion handler of the `(Result<Value, any Error>) -> Void` shape, where nothing says
    /// which error type the handler is for (`let handler = resolver.completion()`).
    ///
    /// - Returns: The handler, which settles the promise as the typed form does.
    @_disfavoredOverload
    public func completion() -> @Sendable (Result<Value, any Error>) -> Void {
        let outside = outsideCallback()
        return { [self] result in Self.deliver(outside) { self.resolve(result) } }
    }

    /// A completion handler of any shape, which `transform` maps to the value: what it returns
    /// fulfils the promise, what it throws rejects it (B4, B8).
    ///
    /// This is the way to wrap an API whose callback needs mapping, in code isolated to an actor —
    /// a `@MainActor` view model, or any code of a target whose default isolation is the main
    /// actor:
    ///
    /// ```swift
    /// func text(_ path: String) -> Promise<String> {   // in main-actor code
    ///     Promise { resolver in
    ///         client.load(path, completion: resolver.completion { data, error in
    ///             if let error { throw error }
    ///             return String(decoding: data ?? Data(), as: UTF8.self)
    ///         })
    ///     }
    /// }
    /// ```
    ///
    /// A closure written inside main-actor code and passed to an API that was not compiled for
    /// Swift concurrency (a Swift 5 or Objective-C SDK) is itself main-actor code; when the API
    /// calls it on another thread the process stops with a failed isolation check. `transform` is
    /// `@Sendable`, so it belongs to no actor, and the handler around it is made here: the API may
    /// call it on any thread. A second call is ignored; a handler the API drops surfaces as
    /// ``PromiseError/Code/abandoned``.
    ///
    /// - Parameter transform: Maps the callback's arguments to the value, or throws the error to
    ///   reject with. It runs on the thread that calls the handler, isolated to no actor.
    /// - Returns: The handler, of the callback's shape.
    public func completion<each Argument>(
        _ transform: @escaping @Sendable (repeat each Argument) throws -> Value
    ) -> @Sendable (repeat each Argument) -> Void {
        let outside = outsideCallback()
        return { [self] (arguments: repeat each Argument) in
            let result = Result { try transform(repeat each arguments) }
            Self.deliver(outside) { self.resolve(result) }
        }
    }

    /// A completion handler of the Objective-C `(Value?, Error?) -> Void` shape (B4).
    ///
    /// An error wins; a `nil` value without an error rejects with `CallbackError.missingValue`.
    /// A second call is ignored; a handler that is never called surfaces as abandonment.
    public var optionalCompletion: @Sendable (Value?, (any Error)?) -> Void {
        let outside = outsideCallback()
        return { [self] value, error in
            let result: Result<Value, any Error> =
                if let error { .failure(error) } else if let value { .success(value) } else { .failure(CallbackError.missingValue) }
            Self.deliver(outside) { self.resolve(result) }
        }
    }
}

extension Resolver where Value == Void {
    /// A completion handler of the `(Error?) -> Void` shape (B4): `nil` fulfils, an error rejects.
    public var errorCompletion: @Sendable ((any Error)?) -> Void {
        let outside = outsideCallback()
        return { [self] error in
            let result: Result<Void, any Error> = if let error { .failure(error) } else { .success(()) }
            Self.deliver(outside) { self.resolve(result) }
        }
    }
}

extension Resolver {
    /// A callback handed to work outside a test runtime, when one drives this thread (see
    /// `PromiseTestRuntime`): the runtime waits for it before its clock jumps, and runs what it
    /// delivers in its own order. `nil` (one relaxed load) everywhere else. Also tells the pending
    /// registry that the promise now waits for a completion handler.
    func outsideCallback() -> OutsideCallback? {
        core.notePending(.completionHandler)
        return OutsideCallback.started("the completion handler of the promise made at \(core.siteText ?? "an unrecorded site")")
    }

    /// Runs `settle` now, or as a job of the test runtime that tracks `outside`.
    static func deliver(_ outside: OutsideCallback?, _ settle: @escaping @Sendable () -> Void) {
        if let outside { outside.deliver(settle) } else { settle() }
    }
}

/// Errors raised by the callback adapters.
public enum CallbackError: Error, Equatable {
    /// A `(Value?, Error?)` completion was called with neither a value nor an error.
    case missingValue
}

/// Calls a completion-handler API and awaits its result — the safe replacement for
/// `withCheckedThrowingContinuation` (B4).
///
/// `start` receives a resolver: pass one of its completion handlers (`Resolver.completion()`,
/// `Resolver.optionalCompletion`, `Resolver.errorCompletion`) to the API, and register how to
/// cancel the operation with `Resolver.onCancel()`.
///
/// ```swift
/// let data = try await withCompletion { (resolver: Resolver<Data>) in
///     let task = session.dataTask(with: url) { data, _, error in resolver.optionalCompletion(data, error) }
///     resolver.onCancel { task.cancel() }
///     task.resume()
/// }
/// ```
///
/// - A second completion is ignored.
/// - A completion that never comes — the API released the handler — throws
///   `PromiseError.Code.abandoned` instead of hanging forever.
/// - Cancelling the awaiting task runs the `onCancel` handler (the operation is cancelled) and
///   throws `PromiseError.Code.cancelled` at once.
/// - An error thrown by `start` is rethrown.
///
/// `start` runs at once, in the caller's isolation (B6): from a `@MainActor` function or an actor
/// method it may use `self` as freely as the body of `withCheckedThrowingContinuation` can.
///
/// - Parameters:
///   - isolation: The caller's actor, filled in for you; `start` runs isolated to it.
///   - fileID: Where the call is, for diagnostics in debug builds (filled in for you).
///   - line: The line of that site (filled in for you).
///   - start: Starts the operation with the resolver.
/// - Returns: The value the operation completed with.
/// - Throws: The operation's error, `PromiseError.Code.cancelled` when the awaiting task is
///   cancelled, or `PromiseError.Code.abandoned` when the completion never comes.
public func withCompletion<Value: Sendable>(
    isolation: isolated (any Actor)? = #isolation,
    fileID: StaticString = #fileID,
    line: UInt = #line,
    _ start: (Resolver<Value>) throws -> Void
) async throws -> Value {
    let promise = Promise<Value>(tracksInterest: true, fileID: fileID, line: line, start)
    return try await promise.value
}
