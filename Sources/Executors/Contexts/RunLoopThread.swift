/// A thread that runs one queue of work, like a thread with a run loop (E4).
///
/// Either it starts a dedicated thread that drains the queue, or — created with
/// `startsThread: false` — the program drives it from a thread of its own with
/// ``run(until:)``, the way a command-line program or a test drives a run loop.
///
/// It is a `SerialExecutor` (an actor can live on it) and a `TaskExecutor`.
///
/// **Lifetime (L3).** The dedicated thread lives as long as the loop is referenced. When the last
/// reference goes away (pending handlers on the loop count as references), the thread runs what is
/// still queued and exits; nothing is dropped. A program-driven loop released with work queued
/// discards that work as ``stop()`` does, since nobody is left to drive it.
///
/// **Stopping.** ``stop()`` is for ending a loop early, while others may still hold it. The thread
/// finishes the item it is running and exits. Work items still queued, and work submitted later,
/// are *discarded*: promise handlers among them never run, and their promises are rejected with
/// `PromiseError.abandoned`. Jobs of Swift tasks are not dropped (a task cannot be abandoned
/// mid-way): they still run, on the stopping thread, before it exits.
public final class RunLoopThread: ExecutionContext, Sendable {
    /// A name for debugging.
    public var name: String { core.name }
    let core: RunLoopCore

    /// Creates a run-loop thread.
    ///
    /// - Parameters:
    ///   - name: A name for debugging.
    ///   - startsThread: `true` (the default) starts a dedicated thread now; `false` leaves the
    ///     driving to whoever calls ``run(until:)``.
    public init(name: String = "RunLoopThread", startsThread: Bool = true) {
        let core = RunLoopCore(name: name, ownsThread: startsThread)
        self.core = core
        if startsThread {
            // The thread holds the core, not this handle, so that releasing the handle ends it.
            startThread(named: name) { core.run(until: { false }) }
        }
    }

    deinit { core.ownerReleased() }

    /// Queues `item`; after ``stop()`` it is discarded instead (see the type's discussion).
    public func submit(_ item: any Runnable) { core.submit(item) }

    /// Queues a closure.
    public func async(_ body: @escaping @Sendable () -> Void) { core.submit(ClosureWorkItem(body)) }

    /// Runs queued work on the calling thread until `condition` returns `true` or the loop is
    /// stopped. Sleeps (without spinning) while the queue is empty.
    ///
    /// `condition` is checked before each item and after each wake-up, so it should become true
    /// through work that runs on this loop (a handler settling a promise, say).
    ///
    /// - Precondition: no other thread is running the loop at the same time.
    public func run(until condition: () -> Bool) { core.run(until: condition) }

    /// Stops the loop: the running item finishes, queued and later work is discarded.
    public func stop() { core.stop() }

    /// Whether the loop has been stopped.
    public var isStopped: Bool { core.isStopped }

    /// Work items waiting to run.
    public var queuedCount: Int { core.queuedCount }

    /// Whether the calling code runs on this loop right now.
    public var isCurrent: Bool { ThreadState.current.isRunning(core) }
}

extension RunLoopThread: SerialExecutor, TaskExecutor {
    /// Queues a job of a task or an actor that runs on this loop.
    public func enqueue(_ job: consuming ExecutorJob) { core.enqueue(job) }

    /// This loop as a serial executor, for actors.
    public func asUnownedSerialExecutor() -> UnownedSerialExecutor { core.asUnownedSerialExecutor() }

    /// This loop as a task executor.
    public func asUnownedTaskExecutor() -> UnownedTaskExecutor { core.asUnownedTaskExecutor() }

    /// Whether the calling code runs on this loop: what `assumeIsolated` asks for actors on it.
    public func isIsolatingCurrentContext() -> Bool? { isCurrent }

    /// Traps unless the calling code runs on this loop.
    public func checkIsolated() { core.checkIsolated() }
}
