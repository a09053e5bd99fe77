import Synchronization

/// One operation of an ``OperationExecutor``: a handle to cancel it or to depend on it.
public final class QueuedOperation: Runnable {
    /// Where the operation is: it leaves `waiting` once, to `running` or `cancelled`, and a running
    /// operation ends `finished`.
    enum State: UInt8, AtomicRepresentable { case waiting, running, finished, cancelled }

    /// The priority it was added with.
    public let priority: OperationExecutor.Priority
    let item: any Runnable
    /// Strong: a queued operation keeps its executor's machinery alive (see ``OperationExecutor``).
    let executor: OperationQueueCore
    /// Written only under its executor's lock, together with the executor's books (see
    /// ``OperationQueueCore/Queues``); readable anywhere.
    private let stateWord = Atomic<State>(.waiting)

    init(_ item: any Runnable, priority: OperationExecutor.Priority, executor: OperationQueueCore) {
        self.item = item
        self.priority = priority
        self.executor = executor
    }

    /// Where the operation is. Set it only under its executor's lock.
    var state: State {
        get { stateWord.load(ordering: .acquiring) }
        set { stateWord.store(newValue, ordering: .releasing) }
    }

    var isDone: Bool { state == .finished || state == .cancelled }

    /// Runs the operation's work and releases the operations that depend on it.
    public func run() {
        ThreadState.current.running(executor) { item.run() }
        executor.finished(self)
    }

    /// Drops the operation's work without running it; a handler's promise is abandoned.
    public func discard() { item.discard() }

    /// Cancels the operation if it has not started: it never runs, and operations depending on it
    /// may start. Returns whether it was still pending. A handler's promise is cancelled.
    @discardableResult
    public func cancel() -> Bool { executor.cancel(self) }

    /// Whether it was cancelled before it started.
    public var isCancelled: Bool { state == .cancelled }

    /// Whether it ran to the end.
    public var isFinished: Bool { state == .finished }
}
