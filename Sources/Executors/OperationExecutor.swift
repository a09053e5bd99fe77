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
public final class OperationExecutor: ExecutionContext, @unchecked Sendable {
    // Safety (`@unchecked Sendable`): every mutable property is guarded by `lock`, including the
    // mutable state of the `QueuedOperation`s this executor owns.

    /// Operation priorities, lowest to highest.
    public enum Priority: Int, Comparable, CaseIterable, Sendable {
        case veryLow, low, normal, high, veryHigh
        /// Orders priorities from lowest to highest.
        public static func < (lhs: Priority, rhs: Priority) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// A name for debugging.
    public let label: String
    private let pool: WorkerPool
    let lock = ConditionLock()
    @exclusivity(unchecked) private var ready: [WorkQueue] = Array(repeating: WorkQueue(), count: Priority.allCases.count)
    @exclusivity(unchecked) private var blocked: [ObjectIdentifier: QueuedOperation] = [:]
    @exclusivity(unchecked) private var running = 0
    @exclusivity(unchecked) private var suspended = false
    @exclusivity(unchecked) private var maxConcurrent: Int

    /// Creates an operation queue.
    ///
    /// - Parameters:
    ///   - label: A name for debugging.
    ///   - maxConcurrentCount: How many operations may run at once (1 = serial).
    ///   - pool: The threads it runs on. Defaults to ``WorkerPool/global``.
    public init(label: String = "OperationExecutor", maxConcurrentCount: Int = 1, pool: WorkerPool = .global) {
        self.label = label
        self.pool = pool
        self.maxConcurrent = max(1, maxConcurrentCount)
    }

    /// How many operations may run at once. Raising it starts waiting operations at once.
    public var maxConcurrentCount: Int {
        get { lock.withLock { maxConcurrent } }
        set {
            lock.lock()
            maxConcurrent = max(1, newValue)
            let start = takeStartable()
            lock.unlock()
            start.forEach(pool.submit)
        }
    }

    /// Operations waiting to start (ready or waiting for dependencies), cancelled ones excluded.
    public var queuedCount: Int {
        lock.withLock { ready.reduce(0) { $0 + $1.liveCount } + blocked.count }
    }

    /// Operations running right now.
    public var runningCount: Int { lock.withLock { running } }

    /// Whether starting new operations is paused.
    public var isSuspended: Bool { lock.withLock { suspended } }

    /// Stops starting operations; running ones finish. Work keeps being accepted.
    public func suspend() { lock.withLock { suspended = true } }

    /// Starts operations again after ``suspend()``.
    public func resume() {
        lock.lock()
        suspended = false
        let start = takeStartable()
        lock.unlock()
        start.forEach(pool.submit)
    }

    /// Submits `item` as an operation of normal priority.
    public func submit(_ item: WorkItem) {
        add(item, priority: .normal, dependencies: [])
    }

    /// A context whose handlers become operations of `priority`.
    public func context(priority: Priority) -> some ExecutionContext {
        PriorityContext(executor: self, priority: priority)
    }

    private final class PriorityContext: ExecutionContext {
        let executor: OperationExecutor
        let priority: Priority
        init(executor: OperationExecutor, priority: Priority) { self.executor = executor; self.priority = priority }
        func submit(_ item: WorkItem) { executor.add(item, priority: priority, dependencies: []) }
    }

    /// Adds a closure as an operation.
    ///
    /// - Parameters:
    ///   - priority: Its priority among ready operations.
    ///   - dependencies: Operations of this executor that must finish (or be cancelled) first.
    ///   - body: The work.
    /// - Returns: A handle to cancel it or to depend on it.
    @discardableResult
    public func addOperation(
        priority: Priority = .normal,
        dependencies: [QueuedOperation] = [],
        _ body: @escaping @Sendable () -> Void
    ) -> QueuedOperation {
        add(ClosureWorkItem(body), priority: priority, dependencies: dependencies)
    }

    /// Adds a work item as an operation; see ``addOperation(priority:dependencies:_:)``.
    @discardableResult
    public func add(_ item: WorkItem, priority: Priority, dependencies: [QueuedOperation]) -> QueuedOperation {
        let operation = QueuedOperation(item, priority: priority, executor: self)
        lock.lock()
        for dependency in dependencies {
            precondition(dependency.executor === self, "dependencies must belong to the same OperationExecutor")
            if !dependency.isDone {
                dependency.dependents.append(operation)
                operation.pendingDependencies += 1
            }
        }
        if operation.pendingDependencies == 0 {
            ready[priority.rawValue].append(operation)
        } else {
            blocked[ObjectIdentifier(operation)] = operation
        }
        let start = takeStartable()
        lock.unlock()
        start.forEach(pool.submit)
        return operation
    }

    /// Cancels every operation that has not started. Running operations finish.
    public func cancelAllOperations() {
        lock.lock()
        var cancelled: [QueuedOperation] = []
        for index in ready.indices {
            while let operation = ready[index].popFirst() as? QueuedOperation {
                cancelled.append(operation)
            }
        }
        cancelled += blocked.values
        blocked = [:]
        for operation in cancelled {
            operation.state = .cancelled
            operation.dependents = []
        }
        let start = takeStartable()
        lock.unlock()
        for operation in cancelled { operation.item.cancelWhileQueued() }
        start.forEach(pool.submit)
    }

    /// Cancels one pending operation. Returns whether it was still pending.
    func cancel(_ operation: QueuedOperation) -> Bool {
        lock.lock()
        guard operation.state == .waiting else {
            lock.unlock()
            return false
        }
        if operation.pendingDependencies == 0 {
            _ = ready[operation.priority.rawValue].remove(operation)
        } else {
            blocked[ObjectIdentifier(operation)] = nil
        }
        operation.state = .cancelled
        _ = releaseDependents(of: operation)
        let start = takeStartable()
        lock.unlock()
        operation.item.cancelWhileQueued()
        start.forEach(pool.submit)
        return true
    }

    func finished(_ operation: QueuedOperation) {
        lock.lock()
        running -= 1
        operation.state = .finished
        _ = releaseDependents(of: operation)
        let start = takeStartable()
        lock.unlock()
        start.forEach(pool.submit)
    }

    /// Moves dependents whose last dependency just ended to the ready queues. Lock held.
    private func releaseDependents(of operation: QueuedOperation) -> [QueuedOperation] {
        let dependents = operation.dependents
        operation.dependents = []
        var released: [QueuedOperation] = []
        for dependent in dependents {
            dependent.pendingDependencies -= 1
            if dependent.pendingDependencies == 0, dependent.state == .waiting {
                blocked[ObjectIdentifier(dependent)] = nil
                ready[dependent.priority.rawValue].append(dependent)
                released.append(dependent)
            }
        }
        return released
    }

    /// Takes the operations that may start now, highest priority first. Lock held.
    private func takeStartable() -> [QueuedOperation] {
        var start: [QueuedOperation] = []
        var obsolete: [QueuedOperation] = []
        outer: while !suspended, running < maxConcurrent {
            for index in ready.indices.reversed() {
                while let operation = ready[index].popFirst() as? QueuedOperation {
                    if operation.item.isObsolete {
                        operation.state = .cancelled
                        obsolete.append(operation)
                        continue
                    }
                    operation.state = .running
                    running += 1
                    start.append(operation)
                    continue outer
                }
            }
            break
        }
        for operation in obsolete { _ = releaseDependents(of: operation) }
        if !obsolete.isEmpty, !suspended, running < maxConcurrent { start += takeStartable() }
        return start
    }
}

/// One operation of an ``OperationExecutor``: a handle to cancel it or to depend on it.
public final class QueuedOperation: WorkItem, @unchecked Sendable {
    // Safety: `state`, `pendingDependencies` and `dependents` are guarded by the owning
    // executor's lock; the rest is immutable.
    enum State { case waiting, running, finished, cancelled }

    /// The priority it was added with.
    public let priority: OperationExecutor.Priority
    let item: WorkItem
    unowned let executor: OperationExecutor
    @exclusivity(unchecked) var state = State.waiting
    @exclusivity(unchecked) var pendingDependencies = 0
    @exclusivity(unchecked) var dependents: [QueuedOperation] = []

    init(_ item: WorkItem, priority: OperationExecutor.Priority, executor: OperationExecutor) {
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

    /// Drops the operation's work (the executor was torn down); a handler's promise is abandoned.
    public override func discard() { item.discard() }

    /// Cancels the operation if it has not started: it never runs, and operations depending on it
    /// may start. Returns whether it was still pending. A handler's promise is cancelled.
    @discardableResult
    public func cancel() -> Bool { executor.cancel(self) }

    /// Whether it was cancelled before it started.
    public var isCancelled: Bool { executor.lock.withLock { state == .cancelled } }

    /// Whether it ran to the end.
    public var isFinished: Bool { executor.lock.withLock { state == .finished } }
}

extension WorkQueue {
    /// Queued items that are not obsolete.
    var liveCount: Int {
        var count = 0
        var node = peek()
        while let item = node {
            if let operation = item as? QueuedOperation, operation.item.isObsolete {} else { count += 1 }
            node = item.next
        }
        return count
    }
}
