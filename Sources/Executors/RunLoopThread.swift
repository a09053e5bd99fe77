/// A thread that runs one queue of work, like a thread with a run loop (E4).
///
/// Either it starts a dedicated thread that drains the queue until ``stop()``, or — created with
/// `startsThread: false` — the program drives it from a thread of its own with
/// ``run(until:)``, the way a command-line program or a test drives a run loop.
///
/// It is a `SerialExecutor` (an actor can live on it) and a `TaskExecutor`.
///
/// **Stopping with work queued.** After ``stop()``, the thread finishes the item it is running
/// and exits. Work items still queued, and work submitted later, are *discarded*: promise handlers
/// among them never run, and their promises are rejected with `PromiseError.abandoned`. Jobs of
/// Swift tasks are not dropped (a task cannot be abandoned mid-way): they still run, on the
/// stopping thread, before it exits.
public final class RunLoopThread: ExecutionContext, @unchecked Sendable {
    // Safety (`@unchecked Sendable`): `queue`, `stopped` and `driver` are guarded by `lock`.

    /// A name for debugging.
    public let name: String
    private let lock = ConditionLock()
    @exclusivity(unchecked) private var queue = WorkQueue()
    @exclusivity(unchecked) private var stopped = false
    @exclusivity(unchecked) private var driving = false

    /// Creates a run-loop thread.
    ///
    /// - Parameters:
    ///   - name: A name for debugging.
    ///   - startsThread: `true` (the default) starts a dedicated thread now; `false` leaves the
    ///     driving to whoever calls ``run(until:)``.
    public init(name: String = "RunLoopThread", startsThread: Bool = true) {
        self.name = name
        if startsThread {
            startThread(named: name) { [self] in self.run(until: { false }) }
        }
    }

    /// Queues `item`; after ``stop()`` it is discarded instead (see the type's discussion).
    public func submit(_ item: WorkItem) {
        lock.lock()
        if stopped {
            lock.unlock()
            item.discard()
            return
        }
        queue.append(item)
        lock.unlock()
        lock.signal()
    }

    /// Queues a closure.
    public func async(_ body: @escaping @Sendable () -> Void) { submit(ClosureWorkItem(body)) }

    /// Runs queued work on the calling thread until `condition` returns `true` or the loop is
    /// stopped. Sleeps (without spinning) while the queue is empty.
    ///
    /// `condition` is checked before each item and after each wake-up, so it should become true
    /// through work that runs on this loop (a handler settling a promise, say).
    ///
    /// - Precondition: no other thread is running the loop at the same time.
    public func run(until condition: () -> Bool) {
        lock.lock()
        precondition(!driving, "RunLoopThread '\(name)' is already being run by another thread")
        driving = true
        lock.unlock()
        let thread = ThreadState.current
        thread.running(self) {
            while true {
                if condition() { break }
                lock.lock()
                while queue.isEmpty && !stopped { lock.wait() }
                if stopped {
                    lock.unlock()
                    break
                }
                let item = queue.popFirst()!
                lock.unlock()
                item.run()
            }
        }
        lock.lock()
        driving = false
        let leftovers = stopped ? takeAll() : []
        lock.unlock()
        leftovers.forEach { $0.discard() }
    }

    /// Stops the loop: the running item finishes, queued and later work is discarded.
    public func stop() {
        lock.lock()
        stopped = true
        let leftovers = driving ? [] : takeAll()
        lock.unlock()
        lock.broadcast()
        leftovers.forEach { $0.discard() }
    }

    /// Whether the loop has been stopped.
    public var isStopped: Bool { lock.withLock { stopped } }

    /// Work items waiting to run.
    public var queuedCount: Int { lock.withLock { queue.count } }

    /// Whether the calling code runs on this loop right now.
    public var isCurrent: Bool { ThreadState.current.isRunning(self) }

    private func takeAll() -> [WorkItem] {
        var items: [WorkItem] = []
        while let item = queue.popFirst() { items.append(item) }
        return items
    }
}

extension RunLoopThread: SerialExecutor, TaskExecutor {
    /// Queues a job of a task or an actor that runs on this loop.
    public func enqueue(_ job: consuming ExecutorJob) {
        submit(JobItem(UnownedJob(job), serial: asUnownedSerialExecutor(), task: asUnownedTaskExecutor()))
    }

    /// This loop as a serial executor, for actors.
    public func asUnownedSerialExecutor() -> UnownedSerialExecutor { UnownedSerialExecutor(ordinary: self) }

    /// This loop as a task executor.
    public func asUnownedTaskExecutor() -> UnownedTaskExecutor { UnownedTaskExecutor(ordinary: self) }

    /// Whether the calling code runs on this loop: what `assumeIsolated` asks for actors on it.
    public func isIsolatingCurrentContext() -> Bool? { isCurrent }

    /// Traps unless the calling code runs on this loop.
    public func checkIsolated() {
        precondition(isCurrent, "not running on RunLoopThread '\(name)'")
    }
}
