/// One operation of an ``OperationExecutor``: a handle to cancel it or to depend on it.
public final class QueuedOperation: WorkItem, @unchecked Sendable {
    // Safety (`@unchecked Sendable`): `state`, `pendingDependencies` and `dependents` are touched
    // only inside `executor.state.withLock` (the lock of the core that owns this operation); the
    // rest is immutable.
    enum State { case waiting, running, finished, cancelled }

    /// The priority it was added with.
    public let priority: OperationExecutor.Priority
    let item: any Runnable
    /// Strong: a queued operation keeps its executor's machinery alive (see ``OperationExecutor``).
    let executor: OperationQueueCore
    @exclusivity(unchecked) var state = State.waiting
    /// Dependencies that have not ended yet, plus one while ``OperationQueueCore/add`` is still
    /// registering them, so that the count cannot reach zero before the operation is filed.
    @exclusivity(unchecked) var pendingDependencies = 0
    /// Operations, of this executor or another, waiting for this one to end.
    @exclusivity(unchecked) var dependents: [QueuedOperation] = []

    init(_ item: any Runnable, priority: OperationExecutor.Priority, executor: OperationQueueCore) {
        self.item = item
        self.priority = priority
        self.executor = executor
        super.init()
    }

    var isDone: Bool { state == .finished || state == .cancelled }

    /// Runs the operation's work and releases the operations that depend on it.
    public override func run() {
        ThreadState.current.running(executor) { item.run() }
        executor.finished(self)
    }

    /// Drops the operation's work without running it; a handler's promise is abandoned.
    public override func discard() { item.discard() }

    /// Cancels the operation if it has not started: it never runs, and operations depending on it
    /// may start. Returns whether it was still pending. A handler's promise is cancelled.
    @discardableResult
    public func cancel() -> Bool { executor.cancel(self) }

    /// Whether it was cancelled before it started.
    public var isCancelled: Bool { executor.state.withLock { _ in state == .cancelled } }

    /// Whether it ran to the end.
    public var isFinished: Bool { executor.state.withLock { _ in state == .finished } }
}
