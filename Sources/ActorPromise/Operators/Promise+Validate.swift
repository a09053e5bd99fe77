import ActorPromiseExecutors

extension Promise {
    /// Passes the value on if `predicate` accepts it; otherwise rejects with `error()`
    /// (``ValidationError`` by default).
    ///
    /// - Parameters:
    ///   - fileID: Where the returned promise is made, for diagnostics (filled in for you).
    ///   - line: The line of that site (filled in for you).
    ///   - context: Where `predicate` runs. Defaults to `WorkerPool.global`.
    ///   - predicate: The check; a thrown error rejects as well.
    ///   - error: The error for a value that fails the check.
    /// - Returns: A promise with this promise's value, or rejected; a rejection or cancellation of
    ///   this promise skips `predicate` and passes on.
    @_disfavoredOverload
    public func validate(
        on context: consuming any ExecutionContext = .global,
        fileID: StaticString = #fileID,
        line: UInt = #line,
        _ predicate: @escaping @Sendable (Value) throws -> Bool,
        else error: @escaping @Sendable () -> any Error = { ValidationError() }
    ) -> Promise<Value> {
        then(on: context, fileID: fileID, line: line) { value in
            guard try predicate(value) else { throw error() }
            return value
        }
    }
}

/// The default error of ``Promise/validate(on:fileID:line:_:else:)-(_,_,_,(Value)->Bool,_)``: the value did not pass the check.
public struct ValidationError: Error, Equatable, CustomStringConvertible {
    /// Creates the error.
    public init() {}
    /// Says that a value failed validation.
    public var description: String { "ValidationError: the value did not pass validation" }
}
