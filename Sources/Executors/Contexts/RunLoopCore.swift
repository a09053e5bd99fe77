/// The queue and the loop behind a ``RunLoopThread``. Its thread holds it strongly, the public
/// handle tells it when the last user let go (``ownerReleased()``), and the loop then exits once
/// the queue is empty. It is the executor identity of the loop (what actors and tasks on it
/// record), so that identity stays valid for as long as the thread runs jobs.
final class RunLoopCore: @unchecked Sendable {
    // Safety (`@unchecked Sendable`): `queue`, `stopped`, `released` and `driving` are guarded by
    // `lock`; `name` and `ownsThread` are immutable.

    let name: String
    private let ownsThread: Bool
    private let lock = ConditionLock()
    @exclusivity(unchecked) private var queue = WorkQueue()
    @exclusivity(unchecked) private var stopped = false
    @exclusivity(unchecked) private var released = false
    @exclusivity(unchecked) private var driving = false

    init(name: String, ownsThread: Bool) {
        self.name = name
        self.ownsThread = ownsThread
    }

    func submit(_ item: WorkItem) {
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

    func run(until condition: () -> Bool) {
        lock.lock()
        precondition(!driving, "RunLoopThread '\(name)' is already being run by another thread")
        driving = true
        lock.unlock()
        ThreadState.current.running(self) {
            while true {
                if condition() { break }
                lock.lock()
                while queue.isEmpty && !stopped && !released { lock.wait() }
                guard !stopped, let item = queue.popFirst() else {
                    // Stopped, or released with nothing left to run: the loop is over for good.
                    stopped = true
                    lock.unlock()
                    break
                }
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

    func stop() {
        lock.lock()
        stopped = true
        let leftovers = driving ? [] : takeAll()
        lock.unlock()
        lock.broadcast()
        leftovers.forEach { $0.discard() }
    }

    /// The handle is gone. A dedicated thread drains what is queued and exits; a program-driven
    /// loop that nobody drives right now can never run its queue, so it stops (discarding it).
    func ownerReleased() {
        lock.lock()
        released = true
        let abandon = !ownsThread && !driving
        lock.unlock()
        if abandon { stop() } else { lock.broadcast() }
    }

    var isStopped: Bool { lock.withLock { stopped } }
    var queuedCount: Int { lock.withLock { queue.count } }

    private func takeAll() -> [WorkItem] {
        var items: [WorkItem] = []
        while let item = queue.popFirst() { items.append(item) }
        return items
    }
}

extension RunLoopCore: SerialExecutor, TaskExecutor {
    func enqueue(_ job: consuming ExecutorJob) {
        submit(JobItem(UnownedJob(job), serial: asUnownedSerialExecutor(), task: asUnownedTaskExecutor()))
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor { UnownedSerialExecutor(ordinary: self) }
    func asUnownedTaskExecutor() -> UnownedTaskExecutor { UnownedTaskExecutor(ordinary: self) }
    func isIsolatingCurrentContext() -> Bool? { ThreadState.current.isRunning(self) }

    func checkIsolated() {
        precondition(ThreadState.current.isRunning(self), "not running on RunLoopThread '\(name)'")
    }
}
