/// The machinery behind an ``OperationExecutor``: ready queues by priority, dependency tracking,
/// suspension. Queued operations hold it strongly, so it outlives the public handle until its work
/// is done; the handle tells it when the last user let go (``ownerReleased()``).
///
/// Every transition runs under its state's lock and returns what to do once the lock is left
/// (``Followups``): work is started, foreign dependents are told, cancelled items are cancelled
/// only after unlocking, so no item runs with a lock held and no two executors' locks are ever held
/// together.
final class OperationQueueCore: Sendable {
    let label: String
    private let pool: WorkerPool
    /// The queues, and the books of every ``QueuedOperation`` this core owns.
    let state: LockedState<Queues>

    init(label: String, maxConcurrent: Int, pool: WorkerPool) {
        self.label = label
        self.pool = pool
        self.state = LockedState(Queues(maxConcurrent: maxConcurrent))
    }

    /// The operations by state, and their books; the lock that guards it also orders every change
    /// of an operation's `state`.
    struct Queues: Sendable {
        var ready: [WorkQueue] = Array(repeating: WorkQueue(), count: OperationExecutor.Priority.allCases.count)
        var blocked: [ObjectIdentifier: QueuedOperation] = [:]
        /// The book of every operation of this core that has not ended: kept from before the
        /// operation is filed until it finishes or is cancelled.
        var books: [ObjectIdentifier: Book] = [:]
        var running = 0
        var suspended = false
        var maxConcurrent: Int

        /// Closes the book of an operation that ended; counts down its dependents, files those of
        /// `owner` whose last dependency it was as ready, and leaves the others to their own
        /// executor.
        mutating func releaseDependents(of operation: QueuedOperation, owner: OperationQueueCore, into followups: inout Followups) {
            let dependents = books.removeValue(forKey: ObjectIdentifier(operation))?.dependents ?? []
            for dependent in dependents {
                guard dependent.executor === owner else {
                    followups.foreign.append(dependent)
                    continue
                }
                dependencyEnded(for: dependent)
            }
        }

        /// One dependency of `operation`, an operation of this core, ended: files it as ready if
        /// that was its last one and it still waits.
        mutating func dependencyEnded(for operation: QueuedOperation) {
            let id = ObjectIdentifier(operation)
            guard let remaining = books[id]?.pendingDependencies else { return }
            books[id]!.pendingDependencies = remaining - 1
            if remaining == 1, operation.state == .waiting, blocked.removeValue(forKey: id) != nil {
                ready[operation.priority.rawValue].append(operation)
            }
        }

        /// Takes the operations that may start now, highest priority first, skipping obsolete ones.
        mutating func takeStartable(owner: OperationQueueCore, into followups: inout Followups) {
            outer: while !suspended, running < maxConcurrent {
                for index in ready.indices.reversed() {
                    while let operation = ready[index].popFirst() as? QueuedOperation {
                        if operation.item.isObsolete {
                            operation.state = .cancelled
                            releaseDependents(of: operation, owner: owner, into: &followups)
                            followups.dropped.append(operation)
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

    /// What a core keeps of one operation until it ends.
    struct Book: Sendable {
        /// Dependencies that have not ended yet, plus one while ``OperationQueueCore/add`` is
        /// still registering them, so that the count cannot reach zero before the operation is
        /// filed.
        var pendingDependencies: Int
        /// Operations, of this executor or another, waiting for this one to end.
        var dependents: [QueuedOperation] = []
    }

    /// What a transition leaves to do after the lock is released.
    struct Followups {
        var start: [QueuedOperation] = []
        var cancelled: [QueuedOperation] = []
        /// Obsolete operations skipped without running: their items are discarded, which frees
        /// what they hold (a cancelled promise's handler and its captures).
        var dropped: [QueuedOperation] = []
        /// Dependents on other executors whose dependency just ended.
        var foreign: [QueuedOperation] = []

        func carryOut(on pool: WorkerPool) {
            for operation in cancelled { operation.item.cancelWhileQueued() }
            for operation in dropped { operation.item.discard() }
            for dependent in foreign { dependent.executor.dependencyEnded(dependent) }
            start.forEach(pool.submit)
        }
    }

    /// Runs `transition` under the lock, then what it left to do.
    private func transact<Result>(_ transition: (inout Queues, inout Followups) -> Result) -> Result {
        var followups = Followups()
        let result = state.withLock { transition(&$0, &followups) }
        followups.carryOut(on: pool)
        return result
    }

    // MARK: Settings and snapshots

    var maxConcurrentCount: Int { state.withLock { $0.maxConcurrent } }

    func setMaxConcurrentCount(_ count: Int) {
        transact { queues, followups in
            queues.maxConcurrent = max(1, count)
            queues.takeStartable(owner: self, into: &followups)
        }
    }

    var queuedCount: Int { state.withLock { queues in queues.ready.reduce(0) { $0 + $1.liveCount } + queues.blocked.count } }
    var runningCount: Int { state.withLock { $0.running } }
    var isSuspended: Bool { state.withLock { $0.suspended } }

    func suspend() { state.withLock { $0.suspended = true } }

    func resume() {
        transact { queues, followups in
            queues.suspended = false
            queues.takeStartable(owner: self, into: &followups)
        }
    }

    /// The public handle is gone: nobody can resume a suspended queue any more, so it resumes
    /// now and its queued work runs (L1).
    func ownerReleased() { resume() }

    // MARK: Adding, cancelling, finishing

    @discardableResult
    func add(_ item: any Runnable, priority: OperationExecutor.Priority, dependencies: [QueuedOperation]) -> QueuedOperation {
        let operation = QueuedOperation(item, priority: priority, executor: self)
        let id = ObjectIdentifier(operation)
        var ended = 0
        if !dependencies.isEmpty {
            // The book must exist before a dependency can count it down; the extra one keeps the
            // count above zero until the operation is filed.
            state.withLock { $0.books[id] = Book(pendingDependencies: dependencies.count + 1) }
            ended = 1
            for dependency in dependencies {
                // The dependency's book is kept by its own executor, under that executor's lock;
                // it is closed in the same trip through the lock in which the dependency ends.
                dependency.executor.state.withLock { queues in
                    if dependency.isDone { ended += 1 } else { queues.books[ObjectIdentifier(dependency)]?.dependents.append(operation) }
                }
            }
        }
        transact { queues, followups in
            // Without dependencies, the book opens as the operation is filed: one trip through the lock.
            if dependencies.isEmpty { queues.books[id] = Book(pendingDependencies: 0) }
            guard let registering = queues.books[id]?.pendingDependencies else { return }
            let remaining = registering - ended
            queues.books[id]!.pendingDependencies = remaining
            guard operation.state == .waiting else { return }
            if remaining == 0 {
                queues.ready[priority.rawValue].append(operation)
            } else {
                queues.blocked[id] = operation
            }
            queues.takeStartable(owner: self, into: &followups)
        }
        return operation
    }

    /// A dependency on another executor ended.
    private func dependencyEnded(_ operation: QueuedOperation) {
        transact { queues, followups in
            queues.dependencyEnded(for: operation)
            queues.takeStartable(owner: self, into: &followups)
        }
    }

    func cancelAll() {
        transact { queues, followups in
            var cancelled: [QueuedOperation] = []
            for index in queues.ready.indices {
                while let operation = queues.ready[index].popFirst() as? QueuedOperation { cancelled.append(operation) }
            }
            cancelled += queues.blocked.values
            queues.blocked = [:]
            for operation in cancelled { operation.state = .cancelled }
            for operation in cancelled { queues.releaseDependents(of: operation, owner: self, into: &followups) }
            followups.cancelled = cancelled
            queues.takeStartable(owner: self, into: &followups)
        }
    }

    /// Cancels one pending operation. Returns whether it was still pending.
    func cancel(_ operation: QueuedOperation) -> Bool {
        transact { queues, followups in
            guard operation.state == .waiting else { return false }
            if queues.blocked.removeValue(forKey: ObjectIdentifier(operation)) == nil {
                _ = queues.ready[operation.priority.rawValue].remove(operation)
            }
            operation.state = .cancelled
            queues.releaseDependents(of: operation, owner: self, into: &followups)
            followups.cancelled = [operation]
            queues.takeStartable(owner: self, into: &followups)
            return true
        }
    }

    func finished(_ operation: QueuedOperation) {
        transact { queues, followups in
            queues.running -= 1
            operation.state = .finished
            queues.releaseDependents(of: operation, owner: self, into: &followups)
            queues.takeStartable(owner: self, into: &followups)
        }
    }
}

extension WorkQueue {
    /// Queued items that are not obsolete.
    var liveCount: Int {
        var count = 0
        forEach { item in
            if let operation = item as? QueuedOperation, operation.item.isObsolete {} else { count += 1 }
        }
        return count
    }
}
