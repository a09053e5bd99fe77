extension Promise {
    /// Looks at the value and passes it on unchanged; a rejection skips `body`.
    ///
    /// PromiseKit's `get`. Use it for side effects on the way (logging, caching) without
    /// breaking the chain's value type.
    ///
    /// - Parameters:
    ///   - fileID: Where the returned promise is made, for diagnostics (filled in for you).
    ///   - line: The line of that site (filled in for you).
    ///   - context: Where `body` runs. Defaults to `WorkerPool.global`.
    ///   - body: Sees the value. A thrown error rejects the returned promise.
    /// - Returns: A promise with this promise's value, after `body` ran; rejected with this
    ///   promise's error (cancellation included) or with what `body` throws.
    @inlinable @discardableResult @_disfavoredOverload
    public func get(
        on context: consuming any ExecutionContext = .global,
        fileID: StaticString = #fileID,
        line: UInt = #line,
        _ body: @escaping @Sendable (Value) throws -> Void
    ) -> Promise<Value> {
        then(on: context, fileID: fileID, line: line) { value -> Value in
            try body(value)
            return value
        }
    }
}
