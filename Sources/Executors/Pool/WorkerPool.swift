import Dispatch
import Synchronization

/// A fixed pool of threads, one per core, that runs work items in parallel.
///
/// ``WorkerPool/global`` is the default context of every promise operator. The pool never grows:
/// handlers that block a thread for long delay everything else, so blocking work belongs on a
/// dedicated thread (a run-loop thread) instead.
///
/// Chain locality: when a job running on a pool thread submits exactly one follow-up job to the
/// same pool (the usual case: a handler settles the next promise of a chain), that job runs next
/// on the same thread, without a lock or a wake-up. Further submissions go to the shared queue so
/// that idle threads pick them up. Once a thread has run ``followUpBudget`` follow-ups in a row
/// while jobs wait in the shared queue, the next follow-up joins the back of that queue instead:
/// a chain that never ends (a polling loop, a long recursion) cannot starve the work submitted
/// meanwhile.
///
/// Wake-ups: a thread that runs out of work while the rest of the pool is idle first searches for
/// a moment (up to 20 µs) — it spins, watching the queue — so a quick back-and-forth (submit, run,
/// signal back, submit again) finds it awake; then it parks. A search that finds nothing makes the
/// thread skip its next searches (1, 2, 4 … up to 64 of them), so a program whose gaps are longer
/// does not burn a core. A submission wakes a parked thread only when the queue holds more jobs
/// than there are searching threads to take them; see `PoolSchedule`.
public final class WorkerPool: ExecutionContext, Sendable {
    /// The shared pool: as many threads as the machine has cores (at least two).
    public static let global = WorkerPool(threadCount: max(2, onlineProcessorCount), name: "ActorPromise.global")

    /// The number of threads in the pool.
    public let threadCount: Int
    /// The schedule: the shared queue, and who is parked or searching.
    private let schedule: LockedState<PoolSchedule>
    /// One semaphore per thread to park on, outside the lock. (A condition variable would make
    /// every wake-up cost a second system call: the woken thread takes the lock back marked as
    /// contended, so its next unlock wakes a waiter that is not there.)
    private let parkers: [Parker]
    /// Whether the shared queue holds a job, readable without the lock: searching threads watch
    /// it. Written under the lock when that changes (so not on every job while the pool is busy:
    /// the searchers' reads then leave the cache line alone), so it is exact whenever the lock is
    /// free.
    private let hasQueuedWork = Atomic<Bool>(false)

    /// How long a thread searches before it parks.
    static let searchSeconds = 20e-6

    /// How many follow-ups a pool thread runs in a row, ahead of jobs waiting in the pool's queue
    /// (see chain locality, above): once a chain has taken that many steps on one thread while
    /// other jobs waited, its next step queues behind them, and the thread takes the oldest job.
    /// Without waiting jobs a chain keeps its thread for as long as it runs.
    public static let followUpBudget = 1_024

    #if ACTORPROMISE_INTERLEAVINGS
    /// This pool's budget: a checked pool's is small, so that a scenario reaches it.
    private let followUpBudget: Int
    #else
    @inline(__always) private var followUpBudget: Int { Self.followUpBudget }
    #endif

    /// Creates a pool and starts its threads. Pools live as long as the process; create few.
    ///
    /// - Parameters:
    ///   - threadCount: How many threads to start (at least one).
    ///   - name: A name given to the threads, for debuggers.
    public init(threadCount: Int, name: String = "ActorPromise.pool") {
        self.threadCount = max(1, threadCount)
        schedule = LockedState(PoolSchedule(workerCount: self.threadCount))
        parkers = (0..<self.threadCount).map { _ in Parker() }
        #if ACTORPROMISE_INTERLEAVINGS
        followUpBudget = Self.followUpBudget
        #endif
        for index in 0..<self.threadCount {
            // Each thread holds its pool strongly, for ever (`workerLoop` returns only for a
            // checker's worker): a pool lives as long as the process.
            startThread(named: "\(name).\(index)") { self.workerLoop(index) }
        }
    }

    #if ACTORPROMISE_INTERLEAVINGS
    private init(startingNoThreads workers: Int, followUpBudget: Int) {
        threadCount = workers
        schedule = LockedState(PoolSchedule(workerCount: workers))
        parkers = (0..<workers).map { _ in Parker() }
        self.followUpBudget = followUpBudget
    }
    #endif

    /// Schedules `item` on one of the pool's threads.
    public func submit(_ item: any Runnable) {
        take(item)
    }

    /// ``submit(_:)`` for a caller that hands over its own reference to `item` (the promise core
    /// delivering an observer): it moves into the pool without a retain.
    @usableFromInline package func take(_ item: consuming any Runnable) {
        // Moved at every step (a `let` captured by the closures below would be copied).
        var item = Optional(item)
        ThreadState.withCurrent { thread in
            guard thread.pool == ObjectIdentifier(self) else {
                // A test runtime driving this thread (never one of this pool's workers) takes it.
                if let interceptor = thread.activeInterceptor {
                    interceptor.enqueue(item.take()!, on: self, ordered: false)
                }
                return
            }
            guard case .none = thread.nextSlot else { return }
            thread.nextSlot = item.take()
        }
        guard item != nil else { return }
        if let worker = withSchedule({ $0.submit(item.take()!) }) { parkers[worker].signal() }
    }

    /// Runs `body` on the schedule under the lock, and publishes whether the queue holds work.
    @inline(__always)
    private func withSchedule<Result>(_ body: (inout PoolSchedule) -> Result) -> Result {
        schedule.withLock { schedule in
            let result = body(&schedule)
            publishQueueState(of: schedule)
            return result
        }
    }

    @inline(__always)
    private func publishQueueState(of schedule: borrowing PoolSchedule) {
        let hasWork = !schedule.queue.isEmpty
        if hasQueuedWork.load(ordering: .relaxed) != hasWork {
            schedulingPoint("pool.publish")
            hasQueuedWork.store(hasWork, ordering: .relaxed)
        }
    }

    /// Worker `index`'s next job — one trip through the lock, and one more after each sleep — or
    /// `nil` if it is to search:
    /// `decide` chooses, and while the choice is to park, the thread sleeps on its semaphore until
    /// a submission wakes it, then takes a job (or parks again if another thread took it first; a
    /// woken thread does not search). `parked` is set if it slept.
    ///
    /// Nothing is lost between parking (under the lock) and sleeping (after it): a submission that
    /// wakes this thread in between leaves its signal in the semaphore, and the wait returns at once.
    @inline(__always)
    private func nextJob(
        for index: Int, parked: inout Bool, _ decide: (inout PoolSchedule) -> PoolSchedule.Next
    ) -> (any Runnable)? {
        var next = withSchedule(decide)
        while true {
            switch consume next {
            case .run(let job): return job
            case .search: return nil
            case .park:
                parked = true
                // Only a worker of the checker's scenarios is ever stopped (see `Parker`).
                guard parkers[index].wait() else { return nil }
                // Whoever woke this thread took it off the parked list and counted it as searching.
                next = withSchedule { $0.nextWhileSearching(for: index, givingUp: true) }
            }
        }
    }

    private func workerLoop(_ index: Int) {
        let thread = ThreadState.current
        thread.pool = ObjectIdentifier(self)
        var backOff = SearchBackOff()
        var followUps = 0
        while true {
            if let item = thread.nextSlot.take() {
                if followUps < followUpBudget || !hasQueuedWork(at: "pool.followUp") {
                    followUps &+= 1
                    item.run()
                    continue
                }
                // Over budget with jobs waiting: the follow-up queues behind them.
                if let worker = withSchedule({ $0.submit(item) }) { parkers[worker].signal() }
            }
            followUps = 0
            var parked = false
            if let job = nextJob(for: index, parked: &parked, { $0.next(for: index, mayStartSearching: backOff.mayStartSearching()) }) {
                job.run()
                continue
            }
            if parkers[index].isStopped { return thread.pool = nil }
            // Searching: spin, then take a job or park.
            var deadline: Double? = nil
            var job: (any Runnable)? = nil
            while job == nil {
                let found = spin(until: &deadline)
                job = nextJob(for: index, parked: &parked) { $0.nextWhileSearching(for: index, givingUp: !found) }
                if job == nil, parkers[index].isStopped { return thread.pool = nil }
            }
            if parked { backOff.gaveUp() } else { backOff.found() }
            job!.run()
        }
    }

    /// Watches the queue until it holds a job (true) or `deadline` passes (false). It reads the
    /// clock every 256 looks; a search's first read sets its deadline (a search that finds work
    /// sooner reads no clock at all). It does not yield the core as it spins: a search that
    /// yields misses most quick replies, and each miss costs a sleep and a wake-up.
    private func spin(until deadline: inout Double?) -> Bool {
        #if ACTORPROMISE_INTERLEAVINGS
        // One look: the checker decides what the other threads did meanwhile.
        return hasQueuedWork(at: "pool.search")
        #else
        var rounds = 0
        while !hasQueuedWork.load(ordering: .relaxed) {
            rounds &+= 1
            if rounds & 255 == 0 {
                let now = monotonicSeconds()
                guard let end = deadline else {
                    deadline = now + Self.searchSeconds
                    continue
                }
                if now >= end { return false }
            }
        }
        return true
        #endif
    }

    /// `hasQueuedWork`, read outside the lock; `label` names the read for the checker.
    @inline(__always)
    private func hasQueuedWork(at label: StaticString) -> Bool {
        schedulingPoint(label)
        return hasQueuedWork.load(ordering: .relaxed)
    }
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
    public var isCurrent: Bool { ThreadState.current.pool == ObjectIdentifier(self) }
}

extension ExecutionContext where Self == WorkerPool {
    /// The library's default context: a shared pool with one thread per core.
    public static var global: WorkerPool { WorkerPool.global }
}

#if ACTORPROMISE_INTERLEAVINGS
extension WorkerPool {
    /// A pool whose workers the interleaving checker's scenarios run (it starts no thread): each
    /// worker runs ``runCheckedWorker(_:)`` on a scenario thread.
    ///
    /// - Parameters:
    ///   - workers: How many workers.
    ///   - followUpBudget: How many follow-ups a worker runs in a row while jobs wait.
    ///   - stopsWhen: When a parked worker with no signal may leave its loop: once every job the
    ///     scenario submits has run. A worker parked with a job still queued then never leaves,
    ///     and the checker reports the deadlock: that is a lost wake-up.
    package convenience init(checkedWorkers workers: Int, followUpBudget: Int, stopsWhen: @escaping @Sendable () -> Bool) {
        self.init(startingNoThreads: workers, followUpBudget: followUpBudget)
        for parker in parkers { parker.stopsWhen(stopsWhen) }
    }

    /// Runs worker `index`'s loop on the calling thread until it is parked and its scenario lets
    /// it stop.
    package func runCheckedWorker(_ index: Int) {
        workerLoop(index)
    }

    /// The schedule's state: the jobs queued and the searching workers.
    package var checkedSchedule: (queued: Int, searching: Int) {
        schedule.withLockUnscheduled { ($0.queue.count, $0.searching) }
    }
}
#endif