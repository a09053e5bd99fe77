extension Promise {
    /// Creates a promise for the result of an async closure, run in a new `Task` (B3).
    ///
    /// The promise is fulfilled with what `operation` returns, or rejected with what it throws.
    /// Cancelling the promise cancels the task (its `Task.isCancelled` becomes `true`); the promise
    /// is rejected with ``PromiseError/Code/cancelled`` at once, whatever the task does afterwards.
    ///
    /// - Parameters:
    ///   - priority: The task's priority.
    ///   - executor: A task executor to prefer (a `SerialQueue`, `ConcurrentQueue`,
    ///     `RunLoopThread` or `WorkerPool`); `nil` for Swift's default.
    ///   - tracksInterest: See ``Promise/pending(tracksInterest:fileID:line:)``.
    ///   - fileID: Where the promise is created, for diagnostics in debug builds (filled in for you).
    ///   - line: The line of that site (filled in for you).
    ///   - operation: The work. Like the body of `Task { }`, it inherits the caller's actor
    ///     isolation: written in `@MainActor` code or an actor method it may use `self` directly
    ///     (B6).
    public init(
        priority: TaskPriority? = nil,
        executor: (any TaskExecutor)? = nil,
        tracksInterest: Bool = true,
        fileID: StaticString = #fileID,
        line: UInt = #line,
        @_inheritActorContext operation: sending @escaping @isolated(any) () async throws -> Value
    ) {
        let (promise, resolver) = Promise.pending(tracksInterest: tracksInterest, fileID: fileID, line: line)
        promise.core.notePending(.task)
        let task = Task(executorPreference: executor, priority: priority) {
            do { resolver.fulfill(try await operation()) } catch { resolver.rejectFromBody(error) }
        }
        resolver.onCancel { task.cancel() }
        self = promise
    }
}
