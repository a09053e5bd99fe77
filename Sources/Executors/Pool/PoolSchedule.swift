/// The worker pool's bookkeeping, without threads: the shared queue, which workers are parked,
/// how many are searching for work, and so whom a submission wakes.
///
/// A worker is in one of three states:
/// - **running**: it runs jobs, and asks for the next one when it has none of its own;
/// - **searching**: it has no job and looks for one without sleeping (it spins for a moment), or
///   it has just been woken and has not taken a job yet;
/// - **parked**: it sleeps until a submission wakes it.
///
/// The rule that keeps wake-ups rare: a submission wakes a parked worker only when the queue holds
/// more jobs than there are searching workers to take them — a searching worker will find a job
/// itself, so a quick back-and-forth with a searching worker wakes nobody, while a burst wakes as
/// many workers as it has jobs (up to all of them) at once. A worker searches only while the rest
/// of the pool is idle too, and at most half the workers search at once (at least one), so
/// spinning never takes a core from work in progress.
///
/// Nothing is lost: a job is queued only under the pool's lock, where a worker also decides to
/// park, so either a worker sees the job before it parks or the submission sees the parked worker
/// (and too few searchers to take every queued job) and wakes it. The pool holds this state in a ``LockedState``; tests drive it
/// directly.
package struct PoolSchedule: Sendable {
    /// Jobs waiting for a worker, oldest first.
    package private(set) var queue = WorkQueue()
    /// Parked workers, in the order they parked; the one that has slept longest is woken first.
    /// (Waking the one that parked last would be kinder to caches, but on a machine with few
    /// cores the same worker then keeps sharing a core with the thread that feeds it.)
    private var sleepers: RingQueue<Int>
    /// Workers searching: spinning, or woken and not yet running a job.
    package private(set) var searching = 0
    /// How many workers the pool has.
    package let workerCount: Int

    package init(workerCount: Int) {
        self.workerCount = workerCount
        sleepers = RingQueue(capacity: workerCount)
    }

    /// What a worker that asked for work does next.
    package enum Next {
        /// Run this job.
        case run(any Runnable)
        /// Look for work without sleeping (the worker now counts as searching).
        case search
        /// Sleep until woken (the worker is now parked).
        case park
    }

    /// Queues `item`; returns the parked worker to wake, if one needs waking.
    package mutating func submit(_ item: consuming any Runnable) -> Int? {
        queue.append(item)
        guard queue.count > searching else { return nil }
        return wakeOne()
    }

    /// A running worker ran out of jobs. It takes the oldest queued job; or it searches if it
    /// `mayStartSearching`, every other worker is idle (parked or searching) and fewer than half
    /// search; or it parks.
    ///
    /// While another worker runs, the work comes from somewhere busy — threads that submit
    /// faster than one worker drains, or the running worker itself — and a spinning worker would
    /// only take a core from them (and fight them for the queue's lock) on a machine with few
    /// cores; a submission there wakes it soon enough. When the whole pool is idle, the next job
    /// comes from outside, often right away (a thread that waits for the answer and submits the
    /// next request): that is what searching is for.
    package mutating func next(for worker: Int, mayStartSearching: Bool) -> Next {
        if let item = queue.popFirst() { return .run(item) }
        if mayStartSearching, 2 * searching < workerCount, sleepers.count + searching == workerCount - 1 {
            searching += 1
            return .search
        }
        sleepers.append(worker)
        return .park
    }

    /// A searching worker looks for work: it takes the oldest queued job, or, if it is `givingUp`,
    /// parks; else it goes on searching.
    ///
    /// (A searcher never needs to wake another for work it leaves behind: while a worker is
    /// parked — and so the queue was empty when it parked — every submission keeps the queue no
    /// longer than the number of searchers, and a searcher's take shortens both.)
    package mutating func nextWhileSearching(for worker: Int, givingUp: Bool) -> Next {
        if let item = queue.popFirst() {
            searching -= 1
            return .run(item)
        }
        guard givingUp else { return .search }
        searching -= 1
        sleepers.append(worker)
        return .park
    }

    /// The parked workers, longest parked first.
    package var parked: [Int] {
        var parked: [Int] = []
        sleepers.forEach { parked.append($0) }
        return parked
    }

    /// Takes the worker that has been parked longest; it counts as searching until it takes a job.
    private mutating func wakeOne() -> Int? {
        guard let worker = sleepers.popFirst() else { return nil }
        searching += 1
        return worker
    }
}
