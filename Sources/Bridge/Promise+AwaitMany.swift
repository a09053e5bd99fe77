
extension Promise {
    /// Awaits every promise and returns their values in input order.
    ///
    /// Throws the first rejection (in time) and stops waiting for the promises still pending:
    /// each one that nobody else waits for cancels itself and its work (B7). Cancelling the
    /// awaiting task does the same for all of them. An empty input returns `[]` at once.
    ///
    /// - Parameter promises: The promises to wait for.
    /// - Returns: Their values, in the order given.
    public static func values(of promises: [Promise<Value>]) async throws -> [Value] {
        try await withThrowingTaskGroup(of: (Int, Value).self) { group in
            for (index, promise) in promises.enumerated() {
                group.addTask { (index, try await promise.value) }
            }
            var values = [Value?](repeating: nil, count: promises.count)
            do {
                for try await (index, value) in group { values[index] = value }
            } catch {
                group.cancelAll()  // each await's cancellation tells its promise (interest, B7)
                throw error
            }
            return values.map { $0! }
        }
    }

    /// Awaits the first promise to be fulfilled and stops waiting for the others (the losers of
    /// the race): each loser that nobody else waits for cancels itself and its work (B7).
    ///
    /// Rejections are skipped while another promise may still be fulfilled; if every promise is
    /// rejected, throws the last rejection. Cancelling the awaiting task stops waiting for all.
    ///
    /// - Parameter promises: The contenders.
    /// - Returns: The first value.
    /// - Throws: The last rejection if none is fulfilled; an empty `AggregateError` at once for
    ///   an empty input, as `Promise.any(_:)` rejects (a race nobody runs has no winner).
    public static func firstValue(of promises: [Promise<Value>]) async throws -> Value {
        if promises.isEmpty { throw AggregateError(errors: []) }
        return try await withThrowingTaskGroup(of: Value.self) { group in
            for promise in promises {
                group.addTask { try await promise.value }
            }
            var lastError: (any Error)?
            while let next = await group.nextResult() {
                switch next {
                case .success(let value):
                    group.cancelAll()  // each await's cancellation tells its promise (interest, B7)
                    return value
                case .failure(let error):
                    lastError = error
                }
            }
            throw lastError ?? CancellationError()
        }
    }
}
