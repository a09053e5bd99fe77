#if ACTORPROMISE_INTERLEAVINGS
@testable import ActorPromise
import Foundation
import Synchronization

/// The contexts built on the pool — a serial queue's hand-off between the submitting thread and
/// the draining one, a concurrent queue's barrier against readers starting, an operation
/// executor's concurrency limit, dependencies and cancel — each on a pool of checked workers
/// (see ``PoolScenarios``); a run-loop thread and the timer thread, each run by a scenario
/// thread; all checked for what a user relies on.
enum ContextScenarios {
    static let all: [Scenario] = [
        serialHandOff, barrierAgainstReaders, operationDependencyAndCancel, runLoopStopAgainstSubmissions,
        runLoopSubmissionAgainstSleep, timerEarlierDeadline, timerFireAgainstCancel,
    ]

    typealias Jobs = PoolScenarios.Jobs

    /// Counts what runs at once; an item passes a scheduling point while it runs, so that the
    /// checker can start another beside it.
    final class Occupancy: Sendable {
        private let readers = Atomic<Int>(0)
        private let barriers = Atomic<Int>(0)
        private let overlaps = Mutex<[String]>([])

        /// What ran beside what it must not have: nothing, in a right run.
        var found: [String] { overlaps.withLock { $0 } }

        /// A plain item (or, with `exclusive`, one that must run alone) runs.
        func run(_ name: String, exclusive: Bool) {
            if exclusive {
                let others = readers.load(ordering: .sequentiallyConsistent) + barriers.add(1, ordering: .sequentiallyConsistent).newValue - 1
                if others > 0 { overlaps.withLock { $0.append("\(name) ran beside \(others) others") } }
                schedulingPoint("item.runs")
                barriers.subtract(1, ordering: .sequentiallyConsistent)
            } else {
                readers.add(1, ordering: .sequentiallyConsistent)
                if barriers.load(ordering: .sequentiallyConsistent) > 0 { overlaps.withLock { $0.append("\(name) ran beside a barrier") } }
                schedulingPoint("item.runs")
                readers.subtract(1, ordering: .sequentiallyConsistent)
            }
        }
    }

    /// Two threads submit two items each to a serial queue whose batches hold one item, so each
    /// item hands the queue to a new pool job: never two at once, each thread's items in order.
    static let serialHandOff = Scenario("serial queue: two submitters against its drain on two workers", bound: 2) {
        let jobs = Jobs(3)
        let pool = PoolScenarios.checkedPool(2, for: jobs)
        let queue = SerialQueue(label: "checked", pool: pool, batchLimit: 1)
        let occupancy = Occupancy()
        let log = CallLog()
        @Sendable func item(_ index: Int) -> ClosureWorkItem {
            jobs.job(index) { occupancy.run("item \(index)", exclusive: true); log.add("\(index)") }
        }
        return .init(threads: PoolScenarios.workers(pool) + [
            { queue.submit(item(0)); queue.submit(item(1)) },
            { queue.submit(item(2)) },
        ], check: {
            var findings = Findings()
            findings.expect(occupancy.found.isEmpty, "\(occupancy.found)")
            let order = log.all
            findings.expect((order.firstIndex(of: "0") ?? 9) < (order.firstIndex(of: "1") ?? -1), "one thread's items out of order: \(order)")
            return findings.problems + jobs.check(pool)
        })
    }

    /// A reader and a barrier from one thread, a reader from another, on a queue two wide: the
    /// barrier starts after the reader before it ended, and no reader runs beside it.
    static let barrierAgainstReaders = Scenario("concurrent queue: a barrier against readers starting", bound: 2) {
        let jobs = Jobs(3)
        let pool = PoolScenarios.checkedPool(2, for: jobs)
        let queue = ConcurrentQueue(label: "checked", width: 2, pool: pool)
        let occupancy = Occupancy()
        let log = CallLog()
        return .init(threads: PoolScenarios.workers(pool) + [
            {
                queue.concurrent.submit(jobs.job(0) { log.add("reader 0"); occupancy.run("reader 0", exclusive: false) })
                queue.submit(jobs.job(1) { log.add("barrier"); occupancy.run("barrier", exclusive: true) })
            },
            { queue.concurrent.submit(jobs.job(2) { occupancy.run("reader 2", exclusive: false) }) },
        ], check: {
            var findings = Findings()
            findings.expect(occupancy.found.isEmpty, "\(occupancy.found)")
            findings.expect(log.all == ["reader 0", "barrier"], "the barrier started before the reader submitted ahead of it: \(log.all)")
            return findings.problems + jobs.check(pool)
        })
    }

    /// An operation executor two wide: `b` depends on `a`, and a thread cancels `a` as a worker
    /// may start it. `b` never starts before `a` ended (so never beside it); a cancelled `a`
    /// never runs.
    static let operationDependencyAndCancel = Scenario("operation executor: a dependency cancelled as it may start", bound: 2) {
        let jobs = Jobs(2)
        let pool = PoolScenarios.checkedPool(2, for: jobs)
        let executor = OperationExecutor(label: "checked", maxConcurrentCount: 2, pool: pool)
        let occupancy = Occupancy()
        let log = CallLog()
        let a = executor.add(jobs.job(0) { log.add("a"); occupancy.run("a", exclusive: true) }, priority: .normal, dependencies: [])
        let cancelled = Holder<Bool>()
        return .init(threads: PoolScenarios.workers(pool) + [
            { executor.add(jobs.job(1) { log.add("b"); occupancy.run("b", exclusive: true) }, priority: .normal, dependencies: [a]) },
            {
                let won = a.cancel()
                cancelled.value = won
                if won { jobs.drop(0) }
            },
        ], check: {
            var findings = Findings()
            findings.expect(occupancy.found.isEmpty, "b ran beside a: \(occupancy.found)")
            let expected = cancelled.value == true ? ["b"] : ["a", "b"]
            findings.expect(log.all == expected, "ran \(log.all); cancel returned \(cancelled.value ?? false)")
            return findings.problems + jobs.check(pool)
        })
    }

    /// A program-driven run loop whose driving thread goes to sleep as another thread submits two
    /// items (E4): both run, once, in order, and the driving thread returns — a submission that
    /// wakes nobody leaves it asleep with work queued, which the checker reports as a deadlock.
    static let runLoopSubmissionAgainstSleep = Scenario("run-loop thread: submissions against the driving thread going to sleep", staleReads: 1) {
        let jobs = Jobs(2)
        let log = CallLog()
        let loop = RunLoopThread(name: "checked", startsThread: false)
        return .init(threads: [
            { loop.run(until: { jobs.allRan }) },
            { for index in 0..<2 { loop.submit(CountedItem(index, jobs, log)) } },
        ], check: {
            var findings = Findings()
            findings.expect(log.all == ["ran 0", "ran 1"], "\(log.all)")
            return findings.problems
        })
    }

    /// The timer thread's loop, run by one thread, asleep on a deadline an hour ahead, while
    /// another schedules an action due now: the new action fires, once, and the later one does
    /// not — without the loop having slept until the later deadline, which a schedule that wakes
    /// nobody would make it do (the checker lets a timed wait's time run out only when no other
    /// thread can run, and says so).
    static let timerEarlierDeadline = Scenario("timer thread: an action due now against the loop asleep on a later one") {
        let timers = TimerThread(startsThread: false)
        let log = CallLog()
        let later = timers.schedule(after: .seconds(3600)) { log.add("later") }
        return .init(threads: [
            { timers.run(until: { log.all.contains("now") }) },
            { _ = timers.schedule(after: .zero) { log.add("now") } },
        ], check: {
            var findings = Findings()
            findings.expect(log.all == ["now"], "fired \(log.all)")
            findings.expect(!InterleavingChecker.shared.timeHasPassed, "the loop slept until the later deadline before the action due now fired")
            findings.expect(timers.pendingCount == 1 && !later.isCancelled, "\(timers.pendingCount) actions queued; the later one cancelled: \(later.isCancelled)")
            return findings.problems
        })
    }

    /// The timer thread fires an action due now as another thread cancels it (L2): the action runs
    /// exactly when `cancel()` says it had started — never after a cancel that returned `true` —
    /// and leaves the queue either way.
    static let timerFireAgainstCancel = Scenario("timer thread: an action due now against its cancel", staleReads: 1) {
        let timers = TimerThread(startsThread: false)
        let log = CallLog()
        let action = timers.schedule(after: .zero) { log.add("fired") }
        let cancelled = Holder<Bool>()
        return .init(threads: [
            { timers.run(until: { !log.all.isEmpty || action.isCancelled }) },
            { cancelled.value = action.cancel() },
        ], check: {
            var findings = Findings()
            let won = cancelled.value == true
            findings.expect(log.all == (won ? [] : ["fired"]), "cancel returned \(won), fired \(log.all)")
            findings.expect(timers.pendingCount == 0, "\(timers.pendingCount) actions left in the queue")
            return findings.problems
        })
    }

    /// An item that says whether it ran or was discarded.
    final class CountedItem: Runnable {
        let index: Int
        let jobs: Jobs
        let log: CallLog

        init(_ index: Int, _ jobs: Jobs, _ log: CallLog) {
            self.index = index
            self.jobs = jobs
            self.log = log
        }

        func run() { jobs.job(index) { [log, index] in log.add("ran \(index)") }.run() }
        func discard() { log.add("discarded \(index)"); jobs.drop(index) }
    }

    /// A program-driven run loop, run by one thread, while another submits two items and a third
    /// stops it (E4): every item runs or is discarded, exactly once; one submitted after `stop()`
    /// returned is discarded; the driving thread returns (it neither sleeps for ever nor misses
    /// the stop's wake-up).
    static let runLoopStopAgainstSubmissions = Scenario("run-loop thread: a stop against submissions and the driving thread") {
        let jobs = Jobs(2)
        let log = CallLog()
        let loop = RunLoopThread(name: "checked", startsThread: false)
        let stopReturned = Atomic<Bool>(false)
        let lateSubmissions = Mutex<[Int]>([])
        return .init(threads: [
            { loop.run(until: { jobs.allRan }) },
            {
                for index in 0..<2 {
                    if stopReturned.load(ordering: .sequentiallyConsistent) { lateSubmissions.withLock { $0.append(index) } }
                    loop.submit(CountedItem(index, jobs, log))
                }
            },
            {
                loop.stop()
                stopReturned.store(true, ordering: .sequentiallyConsistent)
            },
        ], check: {
            var findings = Findings()
            let entries = log.all
            for index in 0..<2 {
                let outcomes = entries.filter { $0.hasSuffix(" \(index)") }
                findings.expect(outcomes.count == 1, "item \(index): \(outcomes)")
            }
            for index in lateSubmissions.withLock({ $0 }) {
                findings.expect(entries.contains("discarded \(index)"), "item \(index), submitted after stop() returned: \(entries)")
            }
            findings.expect(loop.isStopped, "the loop is not stopped")
            return findings.problems
        })
    }
}
#endif
