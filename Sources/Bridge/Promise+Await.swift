extension Promise {
    /// The value, once the promise is fulfilled (B1).
    ///
    /// Returns the value, or throws the error the promise was rejected with. An already settled
    /// promise answers without suspending. It runs on the caller's executor: awaited from an
    /// actor, it resumes there without a hop.
    ///
    /// Cancelling the awaiting task ends only this await (B2): it throws ``PromiseError`` with
    /// code ``PromiseError/Code/cancelled`` at once, even if the promise never settles, while
    /// other awaiters and handlers of the promise are unaffected.
    /// If this was the last dependent that waited for the promise, the promise cancels itself and
    /// its ``Resolver/onCancel(_:)`` stops the work (R7, B7) — unless it was created with
    /// `tracksInterest: false`.
    @inlinable
    nonisolated(nonsending) public var value: Value {
        get async throws {
            if let outcome = takenSettledOutcome { return try outcome.get() }
            return try await awaitOutcome().get()
        }
    }

    /// The outcome, once the promise settles: the value or the error, without throwing.
    ///
    /// Cancelling the awaiting task behaves as for `value`: the result is then a
    /// ``PromiseError/Code/cancelled`` failure. Like `value`, it runs on the caller's executor.
    @inlinable
    nonisolated(nonsending) public var outcome: Result<Value, any Error> {
        get async {
            if let outcome = takenSettledOutcome { return outcome }
            return await awaitOutcome()
        }
    }

}
