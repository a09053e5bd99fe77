/// An operation queue: runs work on the shared pool with a maximum concurrency, priorities,
/// dependencies between operations, cancellation of pending work, and suspend / resume (E3).
///
/// The counterpart of Foundation's `OperationQueue` (named differently so both can be imported).
/// With `maxConcurrentCount: 1` it is serial. Among operations that are ready, the highest
/// priority starts first, and equal priorities start in submission order.
///
/// Passed as a context (`then(on: operations)`), each handler becomes an operation of normal
/// priority; ``context(priority:)`` gives a context with another priority. A promise cancelled
/// while its handler waits here is removed from the queue: the handler never runs and no longer
/// counts in ``queuedCount``.
///
/// **Lifetime (L1).** Queued operations keep the queue's machinery alive, as with Foundation's
/// `OperationQueue`: releasing the last reference to an executor with work queued is safe, and that
/// work still runs. Releasing a *suspended* executor resumes it, since nobody is left who could:
/// its queued operations run, none is dropped. An operation that waits for a dependency on another
/// executor runs once that dependency ends, whichever executor is released first.
public final class OperationExecutor: ExecutionContext, Sendable {
    /// Operation priorities, lowest to highest.
    public enum Priority: Int, Comparable, CaseIterable, Sendable {
        case veryLow, low, normal, high, veryHigh
        /// Orders priorities from lowest to highest.
        public static func < (lhs: Priority, rhs: Priority) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// A name for debugging.
    public var label: String { core.label }
    let core: OperationQueueCore

    /// Creates an operation queue.
    ///
    /// - Parameters:
    ///   - label: A name for debugging.
    ///   - maxConcurrentCount: How many operations may run at once (1 = serial).
    ///   - pool: The threads it runs on. Defaults to ``WorkerPool/global``.
    public init(label: String = "OperationExecutor", maxConcurrentCount: Int = 1, pool: WorkerPool = .global) {
        core = OperationQueueCore(label: label, maxConcurrent: max(1, maxConcurrentCount), pool: pool)
    }

    deinit { core.ownerReleased() }

    /// How many operations may run at once. Raising it starts waiting operations at once.
    public var maxConcurrentCount: Int {
        get { core.maxConcurrentCount }
        set { core.setMaxConcurrentCount(newValue) }
    }

    /// Operations waiting to start (ready or waiting for dependencies), cancelled ones excluded.
    public var queuedCount: Int { core.queuedCount }

    /// Operations running right now.
    public var runningCount: Int { core.runningCount }

    /// Whether starting new operations is paused.
    public var isSuspended: Bool { core.isSuspended }

    /// Whether the calling code runs an operation of this executor right now.
    public var isCurrent: Bool { ThreadState.current.isRunning(core) }

    /// Stops starting operations; running ones finish. Work keeps being accepted.
    public func suspend() { core.suspend() }

    /// Starts operations again after ``suspend()``.
    public func resume() { core.resume() }

    /// Submits `item` as an operation of normal priority.
    public func submit(_ item: any Runnable) {
        core.add(item, priority: .normal, dependencies: [])
    }

    /// A context whose handlers become operations of `priority`.
    public func context(priority: Priority) -> some ExecutionContext {
        PriorityContext(executor: self, priority: priority)
    }

    private final class PriorityContext: ExecutionContext {
        let executor: OperationExecutor
        let priority: Priority
        init(executor: OperationExecutor, priority: Priority) { self.executor = executor; self.priority = priority }
        func submit(_ item: any Runnable) { executor.core.add(item, priority: priority, dependencies: []) }
    }

    /// Adds a closure as an operation.
    ///
    /// - Parameters:
    ///   - priority: Its priority among ready operations.
    ///   - dependencies: Operations that must finish (or be cancelled) first. They may belong to
    ///     this executor or to another one, as with Foundation's `OperationQueue`.
    ///   - body: The work.
    /// - Returns: A handle to cancel it or to depend on it.
    @discardableResult
    public func addOperation(
        priority: Priority = .normal,
        dependencies: [QueuedOperation] = [],
        _ body: @escaping @Sendable () -> Void
    ) -> QueuedOperation {
        core.add(ClosureWorkItem(body), priority: priority, dependencies: dependencies)
    }

    /// Adds a work item as an operation; see ``addOperation(priority:dependencies:_:)``.
    @discardableResult
    public func add(_ item: any Runnable, priority: Priority, dependencies: [QueuedOperation]) -> QueuedOperation {
        core.add(item, priority: priority, dependencies: dependencies)
    }

    /// Cancels every operation that has not started. Running operations finish.
    ///
    /// Cancelled operations that hold promise handlers cancel those promises; operations of
    /// other executors that depended on them may start.
    public func cancelAllOperations() { core.cancelAll() }
}
