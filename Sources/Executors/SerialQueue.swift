/// A serial queue: runs work items one at a time, in submission order, on the shared worker pool.
///
/// The counterpart of a serial dispatch queue. Many serial queues share the pool's threads; a queue
/// with work occupies one pool thread at a time and lets others in between batches, so thousands of
/// queues cost no threads. It is also a `SerialExecutor`, so an actor can run on it
/// (`nonisolated var unownedExecutor: UnownedSerialExecutor { queue.asUnownedSerialExecutor() }`),
/// and a `TaskExecutor`, so `Task(executorPreference: queue)` runs on it.
///
/// Guarantees (E1): FIFO for work submitted from one thread; never two items at once; items that
/// run on it see each other's effects (each item happens-before the next).
public final class SerialQueue: ExecutionContext, @unchecked Sendable {
    // Safety (`@unchecked Sendable`): `queue` and `isScheduled` are guarded by `lock`; `drain` and
    // `batchLimit` are immutable.

    /// A name for debugging.
    public let label: String
    private let pool: WorkerPool
    private let lock = ConditionLock()
    @exclusivity(unchecked) private var queue = WorkQueue()
    @exclusivity(unchecked) private var isScheduled = false
    private let batchLimit = 64
    private lazy var drain: WorkItem = ClosureWorkItem { [unowned self] in self.runBatch() }

    /// Creates a serial queue.
    ///
    /// - Parameters:
    ///   - label: A name for debugging.
    ///   - pool: The threads it runs on. Defaults to ``WorkerPool/global``.
    public init(label: String = "SerialQueue", pool: WorkerPool = .global) {
        self.label = label
        self.pool = pool
        _ = drain
    }

    /// Queues `item` behind everything already submitted.
    public func submit(_ item: WorkItem) {
        lock.lock()
        queue.append(item)
        let schedule = !isScheduled
        isScheduled = true
        lock.unlock()
        if schedule { pool.submit(drain) }
    }

    /// Queues a closure; the same as submitting a ``ClosureWorkItem``.
    public func async(_ body: @escaping @Sendable () -> Void) {
        submit(ClosureWorkItem(body))
    }

    /// Whether the calling code runs on this queue right now.
    public var isCurrent: Bool { ThreadState.current.isRunning(self) }

    private func runBatch() {
        let thread = ThreadState.current
        thread.running(self) {
            for _ in 0..<batchLimit {
                lock.lock()
                guard let item = queue.popFirst() else {
                    isScheduled = false
                    lock.unlock()
                    return
                }
                lock.unlock()
                item.run()
            }
            // Let other queues' work in, then continue.
            pool.submit(drain)
        }
    }
}

extension SerialQueue: SerialExecutor, TaskExecutor {
    /// Queues a job of a task or an actor that runs on this queue.
    public func enqueue(_ job: consuming ExecutorJob) {
        submit(JobItem(UnownedJob(job), serial: asUnownedSerialExecutor(), task: asUnownedTaskExecutor()))
    }

    /// This queue as a serial executor, for actors.
    public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    /// This queue as a task executor.
    public func asUnownedTaskExecutor() -> UnownedTaskExecutor {
        UnownedTaskExecutor(ordinary: self)
    }

    /// Whether the calling code runs on this queue: what `assumeIsolated` asks for actors on it.
    public func isIsolatingCurrentContext() -> Bool? { isCurrent }

    /// Traps unless the calling code runs on this queue.
    public func checkIsolated() {
        precondition(isCurrent, "not running on SerialQueue '\(label)'")
    }
}
