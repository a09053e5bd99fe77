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
///
/// **Lifetime (L1).** Like a `DispatchQueue`, a queue with work submitted keeps itself alive until
/// that work has run: releasing the last reference with items queued (or running) is safe, and
/// every queued item still runs. An idle queue holds no reference to itself and is freed as soon
/// as its last user lets go.
public final class SerialQueue: ExecutionContext, Sendable {

    /// A name for debugging.
    public let label: String
    private let pool: WorkerPool
    private let state: LockedState<Pending>
    /// How many jobs a batch runs before it lets other queues' work in.
    private let batchLimit: Int
    private let drain: Drain

    /// The items waiting, whether a drain is scheduled to run them, and, while it is, the queue
    /// itself (see ``Drain``).
    private struct Pending: Sendable {
        var queue = RingQueue<Job>()
        var isScheduled = false
        /// The queue, held by itself from the moment a drain is scheduled until that drain runs.
        var owner: SerialQueue?

        /// The next job, or `nil` after marking the queue idle.
        mutating func nextJob() -> Job? {
            guard let job = queue.popFirst() else {
                isScheduled = false
                return nil
            }
            return job
        }
    }

    /// What the queue runs: a submitted item, or a closure queued by ``async(_:)``, which then
    /// needs no work item of its own (one allocation fewer per `async`).
    private enum Job: Sendable {
        case item(any Runnable)
        case closure(@Sendable () -> Void)

        func run() {
            switch self {
            case .item(let item): item.run()
            case .closure(let body): body()
            }
        }
    }

    /// The pool job that runs a batch of the queue. While the queue has work scheduled, the queue
    /// is held strongly — by its state's `owner` until the batch starts, then by the running
    /// batch — so that a queue released with work pending lives until that work has run (a
    /// deliberate cycle, broken when the batch starts). The drain holds only the state, so an
    /// idle queue holds no reference to itself.
    private final class Drain: Runnable {
        let state: LockedState<Pending>

        init(_ state: LockedState<Pending>) { self.state = state }

        func run() {
            // The batch's first job comes out in the same trip through the lock as the owner.
            let (owner, first) = state.withLock { pending in (pending.owner.take(), pending.nextJob()) }
            // Moved out, not copied: the batch holds the queue (so it outlives the batch even if
            // nobody else does), and hands it back to `owner` only if it schedules another batch.
            guard let queue = owner, let first else { return }
            queue.runBatch(startingWith: first)
        }
    }

    /// Creates a serial queue.
    ///
    /// - Parameters:
    ///   - label: A name for debugging.
    ///   - pool: The threads it runs on. Defaults to ``WorkerPool/global``.
    public convenience init(label: String = "SerialQueue", pool: WorkerPool = .global) {
        self.init(label: label, pool: pool, batchLimit: 64)
    }

    /// A queue whose batches run at most `batchLimit` jobs (the interleaving checker's scenarios
    /// use a small one).
    package init(label: String, pool: WorkerPool, batchLimit: Int) {
        self.label = label
        self.pool = pool
        self.batchLimit = max(1, batchLimit)
        let state = LockedState(Pending())
        self.state = state
        self.drain = Drain(state)
    }

    /// Queues `item` behind everything already submitted.
    public func submit(_ item: any Runnable) {
        take(.item(item))
    }

    /// Queues `job`, which the caller hands over: it moves into the queue without a retain.
    private func take(_ job: consuming Job) {
        // Moved into the queue (a `let` captured by the closure would be copied).
        var job = Optional(job)
        let schedule = state.withLock { pending -> Bool in
            pending.queue.append(job.take()!)
            guard !pending.isScheduled else { return false }
            pending.isScheduled = true
            pending.owner = self
            return true
        }
        if schedule { pool.submit(drain) }
    }

    /// Queues a closure; the same as submitting a ``ClosureWorkItem``, without allocating one.
    public func async(_ body: consuming @escaping @Sendable () -> Void) {
        take(.closure(body))
    }

    /// Whether the calling code runs on this queue right now.
    public var isCurrent: Bool { ThreadState.current.isRunning(self) }

    /// Runs `first` and then up to `batchLimit - 1` more jobs; schedules the next batch if the
    /// limit was reached.
    private func runBatch(startingWith first: Job) {
        ThreadState.current.running(self) {
            first.run()
            for _ in 1..<batchLimit {
                guard let job = state.withLock({ $0.nextJob() }) else { return }
                job.run()
            }
            // Let other queues' work in, then continue.
            state.withLock { $0.owner = self }
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
