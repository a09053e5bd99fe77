/// A concurrent queue with barriers: items run in parallel up to a width, in submission order of
/// starting; a barrier item waits for every earlier item to finish, runs alone, and holds back
/// every later item until it is done.
///
/// The counterpart of a concurrent dispatch queue with `.barrier` work items (E2).
///
/// **Handlers run as barriers.** Passing the queue itself as a context (`then(on: queue)`) makes
/// each handler a barrier: handlers of a promise chain usually touch shared state guarded by the
/// queue, and a barrier is the safe default: it assumes every handler may write. Ask for
/// parallel execution explicitly with ``concurrent`` (`then(on: queue.concurrent)`), for handlers
/// that only read.
///
/// **Lifetime (L1).** Each queued or running item keeps the queue alive, as with a
/// `DispatchQueue`: releasing the last reference with work pending is safe, and that work runs.
public final class ConcurrentQueue: ExecutionContext, Sendable {

    /// A name for debugging.
    public let label: String
    /// How many items may run at once.
    public let width: Int
    private let pool: WorkerPool
    private let state = LockedState(Slots())

    /// The items waiting, and what runs now.
    private struct Slots: Sendable {
        var waiting = RingQueue<Entry>()
        var running = 0
        var barrierRunning = false

        /// Takes the items that may start now: plain ones up to `width`, a barrier alone.
        mutating func takeReady(width: Int) -> [Entry] {
            var ready: [Entry] = []
            while !barrierRunning, let head = waiting.peek() {
                if head.barrier {
                    guard running == 0 else { break }
                    barrierRunning = true
                } else {
                    guard running < width else { break }
                }
                running += 1
                ready.append(waiting.popFirst()!)
                if head.barrier { break }
            }
            return ready
        }
    }

    /// Creates a concurrent queue.
    ///
    /// - Parameters:
    ///   - label: A name for debugging.
    ///   - width: How many items may run at once; defaults to the pool's thread count.
    ///   - pool: The threads it runs on. Defaults to ``WorkerPool/global``.
    public init(label: String = "ConcurrentQueue", width: Int? = nil, pool: WorkerPool = .global) {
        self.label = label
        self.pool = pool
        self.width = max(1, width ?? pool.threadCount)
    }

    /// Submits `item` as a barrier (see the type's discussion for why handlers default to that).
    public func submit(_ item: any Runnable) {
        enqueue(item, barrier: true)
    }

    /// Queues `body`, as a barrier or as a plain concurrent item.
    public func async(barrier: Bool = false, _ body: @escaping @Sendable () -> Void) {
        enqueue(ClosureWorkItem(body), barrier: barrier)
    }

    /// A context that submits to this queue *without* barriers: handlers run in parallel.
    public var concurrent: some ExecutionContext { Concurrent(queue: self) }

    private final class Concurrent: ExecutionContext {
        let queue: ConcurrentQueue
        init(queue: ConcurrentQueue) { self.queue = queue }
        func submit(_ item: any Runnable) { queue.enqueue(item, barrier: false) }
    }

    /// Wraps an item with its barrier flag and the completion bookkeeping.
    private final class Entry: Runnable {
        let item: any Runnable
        let barrier: Bool
        /// Strong: a queue released with entries waiting or running lives until they are done.
        let queue: ConcurrentQueue

        init(_ item: any Runnable, barrier: Bool, queue: ConcurrentQueue) {
            self.item = item
            self.barrier = barrier
            self.queue = queue
        }

        func run() {
            ThreadState.current.running(queue) { item.run() }
            queue.finished(barrier: barrier)
        }

        func discard() { item.discard() }
    }

    func enqueue(_ item: any Runnable, barrier: Bool) {
        let entry = Entry(item, barrier: barrier, queue: self)
        let ready = state.withLock { slots in
            slots.waiting.append(entry)
            return slots.takeReady(width: width)
        }
        for entry in ready { pool.submit(entry) }
    }

    private func finished(barrier: Bool) {
        let ready = state.withLock { slots in
            slots.running -= 1
            if barrier { slots.barrierRunning = false }
            return slots.takeReady(width: width)
        }
        for entry in ready { pool.submit(entry) }
    }
}

extension ConcurrentQueue: TaskExecutor {
    /// Runs a task's jobs on the queue as plain concurrent items.
    public func enqueue(_ job: consuming ExecutorJob) {
        enqueue(JobItem(UnownedJob(job), serial: nil, task: asUnownedTaskExecutor()), barrier: false)
    }

    /// This queue as a task executor.
    public func asUnownedTaskExecutor() -> UnownedTaskExecutor {
        UnownedTaskExecutor(ordinary: self)
    }

    /// Whether the calling code runs an item of this queue right now.
    public var isCurrent: Bool { ThreadState.current.isRunning(self) }
}
