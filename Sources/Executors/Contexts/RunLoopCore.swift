/// The queue and the loop behind a ``RunLoopThread``. Its thread holds it strongly, the public
/// handle tells it when the last user let go (``ownerReleased()``), and the loop then exits once
/// the queue is empty. It is the executor identity of the loop (what actors and tasks on it
/// record), so that identity stays valid for as long as the thread runs jobs.
final class RunLoopCore: ExecutionContext, Sendable {
    let name: String
    private let ownsThread: Bool
    private let state = LockedState(Loop())

    private struct Loop: Sendable {
        var queue = WorkQueue()
        var stopped = false
        var released = false
        var driving = false

        mutating func takeAll() -> [any Runnable] {
            var items: [any Runnable] = []
            while let item = queue.popFirst() { items.append(item) }
            return items
        }
    }

    init(name: String, ownsThread: Bool) {
        self.name = name
        self.ownsThread = ownsThread
    }

    func submit(_ item: any Runnable) {
        // A test runtime driving this thread runs the item on its own thread, as this loop's,
        // unless the loop has stopped by then.
        if let interceptor = ThreadState.withCurrent({ $0.interceptor }), !isStopped {
            interceptor.enqueue(LoopItem(item, of: self), on: self, ordered: true)
            return
        }
        let accepted = state.withLockWakingWaiters { loop -> Bool in
            guard !loop.stopped else { return false }
            loop.queue.append(item)
            return true
        }
        if !accepted { item.discard() }
    }

    func run(until condition: () -> Bool) {
        state.withLock { loop in
            precondition(!loop.driving, "RunLoopThread '\(name)' is already being run by another thread")
            loop.driving = true
        }
        ThreadState.current.running(self) {
            while !condition() {
                let next: (any Runnable)? = state.withLock(waiting: { loop in
                    if loop.queue.isEmpty && !loop.stopped && !loop.released { return .wait(seconds: nil) }
                    guard !loop.stopped, let item = loop.queue.popFirst() else {
                        // Stopped, or released with nothing left to run: the loop is over for good.
                        loop.stopped = true
                        return .done(nil)
                    }
                    return .done(item)
                })
                guard let item = next else { break }
                item.run()
            }
        }
        let leftovers = state.withLock { loop in
            loop.driving = false
            return loop.stopped ? loop.takeAll() : []
        }
        leftovers.forEach { $0.discard() }
    }

    func stop() {
        let leftovers = state.withLockWakingWaiters { loop in
            loop.stopped = true
            return loop.driving ? [] : loop.takeAll()
        }
        leftovers.forEach { $0.discard() }
    }

    /// The handle is gone. A dedicated thread drains what is queued and exits; a program-driven
    /// loop that nobody drives right now can never run its queue, so it stops (discarding it).
    func ownerReleased() {
        let abandon = state.withLockWakingWaiters { loop in
            loop.released = true
            return !ownsThread && !loop.driving
        }
        if abandon { stop() }
    }

    var isStopped: Bool { state.withLock { $0.stopped } }
    var queuedCount: Int { state.withLock { $0.queue.count } }
}

/// An item of a run loop that a test runtime runs: as the loop's (for `isCurrent` and
/// `assumeIsolated`), unless the loop stopped meanwhile, which drops it as the loop would.
private final class LoopItem: Runnable {
    let item: any Runnable
    let loop: RunLoopCore

    init(_ item: any Runnable, of loop: RunLoopCore) {
        self.item = item
        self.loop = loop
    }

    func run() {
        if loop.isStopped { return item.discard() }
        ThreadState.current.running(loop) { item.run() }
    }

    func discard() { item.discard() }
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
