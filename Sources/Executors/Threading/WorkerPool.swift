/// A fixed pool of threads, one per core, that runs work items in parallel.
///
/// ``WorkerPool/global`` is the default context of every promise operator. The pool never grows:
/// handlers that block a thread for long delay everything else, so blocking work belongs on a
/// dedicated thread (a run-loop thread) instead.
///
/// Chain locality: when a job running on a pool thread submits exactly one follow-up job to the
/// same pool (the usual case: a handler settles the next promise of a chain), that job runs next
/// on the same thread, without a lock or a wake-up. Further submissions go to the shared queue so
/// that idle threads pick them up. Idle threads park on a condition variable (no spinning).
public final class WorkerPool: ExecutionContext, @unchecked Sendable {
    // Safety (`@unchecked Sendable`): `queue` and `idleThreads` are read and written only with
    // `lock` held; `threadCount` is immutable.

    /// The shared pool: as many threads as the machine has cores (at least two).
    public static let global = WorkerPool(threadCount: max(2, onlineProcessorCount), name: "ActorPromise.global")

    /// The number of threads in the pool.
    public let threadCount: Int
    private let lock = ConditionLock()
    @exclusivity(unchecked) private var queue = WorkQueue()
    @exclusivity(unchecked) private var idleThreads = 0
    /// Signals sent to idle threads that have not woken yet: no need to signal them again.
    @exclusivity(unchecked) private var wakesInFlight = 0

    /// Creates a pool and starts its threads. Pools live as long as the process; create few.
    ///
    /// - Parameters:
    ///   - threadCount: How many threads to start (at least one).
    ///   - name: A name given to the threads, for debuggers.
    public init(threadCount: Int, name: String = "ActorPromise.pool") {
        self.threadCount = max(1, threadCount)
        for index in 0..<self.threadCount {
            // Each thread holds its pool strongly, for ever (`workerLoop` never returns): a pool
            // lives as long as the process, so `ThreadState.pool` may refer to it unowned.
            startThread(named: "\(name).\(index)") { self.workerLoop() }
        }
    }

    /// Schedules `item` on one of the pool's threads.
    public func submit(_ item: WorkItem) {
        let handedOn = ThreadState.withCurrent { thread in
            guard thread.pool === self, thread.nextSlot == nil else { return false }
            thread.nextSlot = item
            return true
        }
        if handedOn { return }
        lock.lock()
        queue.append(item)
        let wake = idleThreads > wakesInFlight
        if wake { wakesInFlight += 1 }
        lock.unlock()
        if wake { lock.signal() }
    }

    private func workerLoop() -> Never {
        let thread = ThreadState.current
        thread.pool = self
        while true {
            if let item = thread.nextSlot {
                thread.nextSlot = nil
                item.run()
                continue
            }
            lock.lock()
            while queue.isEmpty {
                idleThreads += 1
                lock.wait()
                idleThreads -= 1
                if wakesInFlight > 0 { wakesInFlight -= 1 }
            }
            let item = queue.popFirst()!
            lock.unlock()
            item.run()
        }
    }
}

/// Starts a detached thread running `body`.
package func startThread(named name: String, _ body: @escaping @Sendable () -> Void) {
    final class Box: Sendable {
        let body: @Sendable () -> Void
        let name: String
        init(_ body: @escaping @Sendable () -> Void, name: String) { self.body = body; self.name = name }
    }
    let box = Unmanaged.passRetained(Box(body, name: name)).toOpaque()
    var attributes = pthread_attr_t()
    pthread_attr_init(&attributes)
    pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
    pthread_attr_setstacksize(&attributes, 8 << 20)
    #if canImport(Darwin)
    var thread: pthread_t? = nil
    #else
    var thread = pthread_t()
    #endif
    let status = pthread_create(&thread, &attributes, { raw in
        #if canImport(Darwin)
        let box = Unmanaged<Box>.fromOpaque(raw).takeRetainedValue()
        pthread_setname_np(String(box.name.prefix(63)))
        #else
        let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
        #endif
        box.body()
        return nil
    }, box)
    pthread_attr_destroy(&attributes)
    precondition(status == 0, "pthread_create failed: \(status)")
}

extension WorkerPool: TaskExecutor {
    /// Runs a task's jobs on the pool: `Task(executorPreference: WorkerPool.global) { … }`.
    public func enqueue(_ job: consuming ExecutorJob) {
        submit(JobItem(UnownedJob(job), serial: nil, task: asUnownedTaskExecutor()))
    }

    /// This pool as a task executor.
    public func asUnownedTaskExecutor() -> UnownedTaskExecutor {
        UnownedTaskExecutor(ordinary: self)
    }

    /// Whether the calling thread is one of this pool's threads.
    public var isCurrent: Bool { ThreadState.current.pool === self }
}
