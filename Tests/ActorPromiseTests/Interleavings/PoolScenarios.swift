#if ACTORPROMISE_INTERLEAVINGS
@testable import ActorPromise
import Foundation
import Synchronization

/// The worker pool's own threads under the checker: workers that search, park on their
/// semaphores and are woken, against submissions from outside and from the workers themselves.
/// Each worker is a scenario thread running the pool's real loop (`runCheckedWorker`); it leaves
/// the loop only once parked with every job run, so a job left queued while every worker sleeps
/// (a lost wake-up) ends the run as a deadlock.
enum PoolScenarios {
    static let all: [Scenario] = [
        outsideSubmissions, twoSubmitters, followUpAndSubmission, followUpBudget,
    ]

    /// Jobs that count their runs; the pool may stop once every job ran.
    final class Jobs: Sendable {
        /// How often each job ran (a `Mutex`, which the checker does not schedule: the count is
        /// the scenario's, not the library's).
        let runs: Mutex<[Int]>
        /// The jobs that must not run (cancelled before they started).
        let dropped = Mutex<Set<Int>>([])
        let count: Int
        let total = Atomic<Int>(0)

        init(_ count: Int) {
            self.count = count
            runs = Mutex(Array(repeating: 0, count: count))
        }

        var allRan: Bool { total.load(ordering: .sequentiallyConsistent) >= count }

        /// Job `index`: counts its run, then does `then`.
        func job(_ index: Int, then: @escaping @Sendable () -> Void = {}) -> ClosureWorkItem {
            ClosureWorkItem { [self] in
                runs.withLock { $0[index] += 1 }
                then()
                total.add(1, ordering: .sequentiallyConsistent)
            }
        }

        /// Job `index` will never run: it was cancelled before it started.
        func drop(_ index: Int) {
            dropped.withLock { _ = $0.insert(index) }
            total.add(1, ordering: .sequentiallyConsistent)
        }

        /// Whether job `index` has run.
        func ran(_ index: Int) -> Bool { runs.withLock { $0[index] > 0 } }

        /// Every job ran exactly once (a dropped one never), and the pool's queue is empty.
        func check(_ pool: WorkerPool) -> [String] {
            var findings = Findings()
            let dropped = dropped.withLock { $0 }
            for (index, count) in runs.withLock({ $0 }).enumerated() {
                let expected = dropped.contains(index) ? 0 : 1
                findings.expect(count == expected, "job \(index) ran \(count) times, not \(expected)")
            }
            let schedule = pool.checkedSchedule
            findings.expect(schedule.queued == 0, "\(schedule.queued) jobs left in the queue")
            return findings.problems
        }
    }

    /// A pool of `workers` checked workers that stop once `jobs` all ran.
    static func checkedPool(_ workers: Int, for jobs: Jobs, followUpBudget: Int = 1_024) -> WorkerPool {
        WorkerPool(checkedWorkers: workers, followUpBudget: followUpBudget) { jobs.allRan }
    }

    /// The threads that run the pool's workers.
    static func workers(_ pool: WorkerPool) -> [@Sendable () -> Void] {
        (0..<pool.threadCount).map { index in { pool.runCheckedWorker(index) } }
    }

    /// Two workers, and a thread that submits three jobs as they search, park and wake.
    static let outsideSubmissions = Scenario("pool: three submissions from outside against two workers parking", staleReads: 1) {
        let jobs = Jobs(3)
        let pool = checkedPool(2, for: jobs)
        return .init(threads: workers(pool) + [
            { for index in 0..<3 { pool.submit(jobs.job(index)) } },
        ], check: { jobs.check(pool) })
    }

    /// Two threads submit at once while two workers park and wake.
    static let twoSubmitters = Scenario("pool: two submitters against two workers", bound: 2) {
        let jobs = Jobs(3)
        let pool = checkedPool(2, for: jobs)
        return .init(threads: workers(pool) + [
            { pool.submit(jobs.job(0)); pool.submit(jobs.job(1)) },
            { pool.submit(jobs.job(2)) },
        ], check: { jobs.check(pool) })
    }

    /// A job submits its follow-up (kept on its worker) while another thread submits to the
    /// shared queue.
    static let followUpAndSubmission = Scenario("pool: a job's follow-up against a submission from outside", bound: 2) {
        let jobs = Jobs(3)
        let pool = checkedPool(2, for: jobs)
        let first = jobs.job(0) { pool.submit(jobs.job(1)) }
        return .init(threads: workers(pool) + [
            { pool.submit(first) },
            { pool.submit(jobs.job(2)) },
        ], check: { jobs.check(pool) })
    }

    /// A chain of follow-ups past a budget of one while another job waits in the queue: the
    /// follow-up queues behind it, and both run.
    static let followUpBudget = Scenario("pool: a chain of follow-ups over its budget against a waiting job") {
        let jobs = Jobs(4)
        let pool = checkedPool(1, for: jobs, followUpBudget: 1)
        let chain = jobs.job(0) { pool.submit(jobs.job(1) { pool.submit(jobs.job(2)) }) }
        return .init(threads: workers(pool) + [
            { pool.submit(chain) },
            { pool.submit(jobs.job(3)) },
        ], check: { jobs.check(pool) })
    }
}
#endif
