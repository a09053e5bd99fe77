/// The machinery behind an ``OperationExecutor``: ready queues by priority, dependency tracking,
/// suspension. Queued operations hold it strongly, so it outlives the public handle until its work
/// is done; the handle tells it when the last user let go (``ownerReleased()``).
///
/// Every transition runs under `lock` and returns what to do once the lock is left
/// (``Followups``): work is started, foreign dependents are told, cancelled items are cancelled
/// only after unlocking, so no item runs with a lock held and no two executors' locks are ever held
/// together.
final class OperationQueueCore: @unchecked Sendable {
    // Safety (`@unchecked Sendable`): every mutable property is guarded by `lock`, including the
    // mutable state of the `QueuedOperation`s this core owns.

    let label: String
    private let pool: WorkerPool
    let lock = ConditionLock()
    @exclusivity(unchecked) private var ready: [WorkQueue] = Array(repeating: WorkQueue(), count: OperationExecutor.Priority.allCases.count)
    @exclusivity(unchecked) private var blocked: [ObjectIdentifier: QueuedOperation] = [:]
    @exclusivity(unchecked) private var running = 0
    @exclusivity(unchecked) private var suspended = false
    @exclusivity(unchecked) private var maxConcurrent: Int

    init(label: String, maxConcurrent: Int, pool: WorkerPool) {
        self.label = label
        self.maxConcurrent = maxConcurrent
        self.pool = pool
    }

    /// What a transition leaves to do after the lock is released.
    private struct Followups {
        var start: [QueuedOperation] = []
        var cancelled: [QueuedOperation] = []
        /// Dependents on other executors whose dependency just ended.
        var foreign: [QueuedOperation] = []

        func carryOut(on pool: WorkerPool) {
            for operation in cancelled { operation.item.cancelWhileQueued() }
            for dependent in foreign { dependent.executor.dependencyEnded(dependent) }
            start.forEach(pool.submit)
        }
    }

    /// Runs `transition` under the lock, then what it left to do.
    private func transact(_ transition: (inout Followups) -> Void) {
        var followups = Followups()
        lock.lock()
        transition(&followups)
        lock.unlock()
        followups.carryOut(on: pool)
    }

    // MARK: Settings and snapshots

    var maxConcurrentCount: Int { lock.withLock { maxConcurrent } }

    func setMaxConcurrentCount(_ count: Int) {
        transact { followups in
            maxConcurrent = max(1, count)
            takeStartable(into: &followups)
        }
    }

    var queuedCount: Int { lock.withLock { ready.reduce(0) { $0 + $1.liveCount } + blocked.count } }
    var runningCount: Int { lock.withLock { running } }
    var isSuspended: Bool { lock.withLock { suspended } }

    func suspend() { lock.withLock { suspended = true } }

    func resume() {
        transact { followups in
            suspended = false
            takeStartable(into: &followups)
        }
    }

    /// The public handle is gone: nobody can resume a suspended queue any more, so it resumes
    /// now and its queued work runs (L1).
    func ownerReleased() { resume() }

    // MARK: Adding, cancelling, finishing

    @discardableResult
    func add(_ item: WorkItem, priority: OperationExecutor.Priority, dependencies: [QueuedOperation]) -> QueuedOperation {
        let operation = QueuedOperation(item, priority: priority, executor: self)
        // Not visible to anyone yet. The extra one keeps the count above zero until it is filed.
        operation.pendingDependencies = dependencies.count + 1
        var ended = 1
        for dependency in dependencies {
            let owner = dependency.executor
            owner.lock.lock()
            if dependency.isDone { ended += 1 } else { dependency.dependents.append(operation) }
            owner.lock.unlock()
        }
        transact { followups in
            operation.pendingDependencies -= ended
            guard operation.state == .waiting else { return }
            if operation.pendingDependencies == 0 {
                ready[priority.rawValue].append(operation)
            } else {
                blocked[ObjectIdentifier(operation)] = operation
            }
            takeStartable(into: &followups)
        }
        return operation
    }

    /// A dependency on another executor ended.
    private func dependencyEnded(_ operation: QueuedOperation) {
        transact { followups in
            operation.pendingDependencies -= 1
            guard operation.pendingDependencies == 0, operation.state == .waiting,
                  blocked.removeValue(forKey: ObjectIdentifier(operation)) != nil else { return }
            ready[operation.priority.rawValue].append(operation)
            takeStartable(into: &followups)
        }
    }

    func cancelAll() {
        transact { followups in
            var cancelled: [QueuedOperation] = []
            for index in ready.indices {
                while let operation = ready[index].popFirst() as? QueuedOperation { cancelled.append(operation) }
            }
            cancelled += blocked.values
            blocked = [:]
            for operation in cancelled { operation.state = .cancelled }
            for operation in cancelled { releaseDependents(of: operation, into: &followups) }
            followups.cancelled = cancelled
            takeStartable(into: &followups)
        }
    }

    /// Cancels one pending operation. Returns whether it was still pending.
    func cancel(_ operation: QueuedOperation) -> Bool {
        var wasPending = false
        transact { followups in
            guard operation.state == .waiting else { return }
            wasPending = true
            if blocked.removeValue(forKey: ObjectIdentifier(operation)) == nil {
                _ = ready[operation.priority.rawValue].remove(operation)
            }
            operation.state = .cancelled
            releaseDependents(of: operation, into: &followups)
            followups.cancelled = [operation]
            takeStartable(into: &followups)
        }
        return wasPending
    }

    func finished(_ operation: QueuedOperation) {
        transact { followups in
            running -= 1
            operation.state = .finished
            releaseDependents(of: operation, into: &followups)
            takeStartable(into: &followups)
        }
    }

    // MARK: Transitions (lock held)

    /// Counts down the dependents of an operation that ended; files those of this executor whose
    /// last dependency it was as ready, and leaves the others to their own executor.
    private func releaseDependents(of operation: QueuedOperation, into followups: inout Followups) {
        let dependents = operation.dependents
        operation.dependents = []
        for dependent in dependents {
            guard dependent.executor === self else {
                followups.foreign.append(dependent)
                continue
            }
            dependent.pendingDependencies -= 1
            if dependent.pendingDependencies == 0, dependent.state == .waiting,
               blocked.removeValue(forKey: ObjectIdentifier(dependent)) != nil {
                ready[dependent.priority.rawValue].append(dependent)
            }
        }
    }

    /// Takes the operations that may start now, highest priority first, skipping obsolete ones.
    private func takeStartable(into followups: inout Followups) {
        outer: while !suspended, running < maxConcurrent {
            for index in ready.indices.reversed() {
                while let operation = ready[index].popFirst() as? QueuedOperation {
                    if operation.item.isObsolete {
                        operation.state = .cancelled
                        releaseDependents(of: operation, into: &followups)
                        continue
                    }
                    operation.state = .running
                    running += 1
                    followups.start.append(operation)
                    continue outer
                }
            }
            break
        }
    }
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
