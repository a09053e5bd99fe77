#if ACTORPROMISE_INTERLEAVINGS
@testable import ActorPromise
import Foundation

/// Timers (a fire against a cancel) and awaiters (the awaiter's phase against fulfilment and
/// against the task's cancellation).
enum TimerAndAwaitScenarios {
    static let all: [Scenario] = [fireAgainstCancel, timeoutFireAgainstFulfil, awaitAgainstFulfil, awaitCancelAgainstFulfil]

    /// A timer's fire against its cancel: the action runs exactly when `cancel()` says it had
    /// already started.
    static let fireAgainstCancel = Scenario("a timer's fire against its cancel", staleReads: 1) {
        let scheduler = ManualScheduler()
        let log = CallLog()
        let action = scheduler.schedule(after: .seconds(1)) { log.add("fired") }
        let cancelled = Holder<Bool>()
        return .init(threads: [
            { scheduler.advance(by: .seconds(1)) },
            { cancelled.value = action.cancel() },
        ], check: {
            var findings = Findings()
            let won = cancelled.value == true
            findings.expect(log.all.count == (won ? 0 : 1), "cancel returned \(won), action ran \(log.all.count) times")
            findings.expect(action.isCancelled == won, "isCancelled \(action.isCancelled), cancel returned \(won)")
            return findings.problems
        })
    }

    /// A timeout's timer fires as its input is fulfilled: the result is the value or `timedOut`,
    /// once; the value stands only if the input was fulfilled.
    static let timeoutFireAgainstFulfil = Scenario("a timeout's timer against its input's fulfilment") {
        let (input, resolver) = Promise<Int>.pending()
        let scheduler = ManualScheduler()
        let limited = input.timeout(after: .seconds(10), scheduler: scheduler)
        let log = CallLog()
        limited.whenComplete(on: .inline) { log.add(describe($0)) }
        return .init(threads: [
            { resolver.fulfill(5) },
            { scheduler.advance(by: .seconds(10)) },
        ], watching: [("input", input.core), ("timeout", limited.core)], check: {
            var findings = Findings()
            let s = state(limited)
            let timedOut = if case .failure(let error as PromiseError)? = limited.result { error.code == .timedOut } else { false }
            findings.expect(s == "fulfilled(5)" || timedOut, "timeout \(s)")
            findings.expect(!(s == "fulfilled(5)") || input.isFulfilled, "timeout \(s), input \(state(input))")
            findings.expect(log.all == [s], "callback \(log.all), timeout \(s)")
            findings.gatesFree([input, limited], ["input", "timeout"])
            return findings.problems
        })
    }

    /// `await promise.value` in a task whose jobs a scenario thread runs, against the promise's
    /// fulfilment on another thread: the task gets the value once.
    static let awaitAgainstFulfil = Scenario("an await against the fulfilment", staleReads: 1) {
        let (promise, resolver) = Promise<Int>.pending()
        let executor = ScenarioTaskExecutor()
        let result = Holder<String>()
        return .init(threads: [
            awaiting(promise, on: executor, into: result),
            { resolver.fulfill(4) },
        ], check: {
            var findings = Findings()
            findings.expect(result.value == "fulfilled(4)", "the await returned \(result.value ?? "nothing")")
            findings.gatesFree([promise], ["promise"])
            return findings.problems
        })
    }

    /// The awaiting task cancelled as the promise is fulfilled: the await returns once, with the
    /// value or the cancellation; on cancellation the promise, which nobody else waits for, is
    /// cancelled with its `onCancel` run once (B2, B7).
    static let awaitCancelAgainstFulfil = Scenario("an awaiting task's cancel against the fulfilment") {
        let cancels = CallLog()
        let (promise, resolver) = Promise<Int>.pending()
        resolver.onCancel { cancels.add("cancel") }
        let executor = ScenarioTaskExecutor()
        let result = Holder<String>()
        return .init(threads: [
            awaiting(promise, on: executor, into: result),
            {
                InterleavingChecker.shared.wait { executor.task != nil }
                // The runtime runs a task's cancellation handler holding the task's own lock,
                // which a resumption and the resumed task's removal of the handler need too.
                InterleavingChecker.shared.holdingRuntimeLock { executor.task?.cancel() }
            },
            { resolver.fulfill(4) },
        ], watching: [("promise", promise.core)], check: {
            var findings = Findings()
            let got = result.value ?? "nothing"
            findings.expect(got == "fulfilled(4)" || got == "cancelled", "the await returned \(got)")
            if got == "fulfilled(4)" {
                findings.expect(promise.isFulfilled, "the await got the value, the promise is \(state(promise))")
            }
            findings.expect(cancels.all.count == (promise.isCancelled ? 1 : 0), "onCancel ran \(cancels.all.count) times, promise \(state(promise))")
            findings.gatesFree([promise], ["promise"])
            return findings.problems
        })
    }
}

/// A scenario thread that awaits `promise` in a task whose jobs it runs itself, and keeps what the
/// await returned.
private func awaiting(
    _ promise: Promise<Int>, on executor: ScenarioTaskExecutor, into result: Holder<String>
) -> @Sendable () -> Void {
    {
        executor.run {
            let outcome = await promise.awaitOutcome()
            result.value = describe(outcome)
        }
    }
}

/// A task executor whose jobs one scenario thread runs: `run` starts a task on it and runs its
/// jobs until the task ends, waiting (in the checker) while it has none.
final class ScenarioTaskExecutor: TaskExecutor, @unchecked Sendable {
    // Safety: `jobs`, `finished` and `started` are touched only with `lock` held (not a library
    // lock: the checker does not schedule it).
    private let lock = ScenarioLock()
    private var jobs: [UnownedJob] = []
    private var finished = false
    private var started: Task<Void, Never>?

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        lock.lock()
        jobs.append(job)
        lock.unlock()
    }

    /// The task `run` started, once it has.
    var task: Task<Void, Never>? {
        lock.lock()
        defer { lock.unlock() }
        return started
    }

    private var hasWork: Bool {
        lock.lock()
        defer { lock.unlock() }
        return finished || !jobs.isEmpty
    }

    func run(_ body: @escaping @Sendable () async -> Void) {
        let task = Task(executorPreference: self) {
            await body()
            self.lock.withLock { self.finished = true }
        }
        lock.lock()
        started = task
        lock.unlock()
        while true {
            InterleavingChecker.shared.wait { self.hasWork }
            lock.lock()
            if jobs.isEmpty {
                let done = finished
                lock.unlock()
                if done { return }
                continue   // only when the checker has given up on this run: threads run freely
            }
            let job = jobs.removeFirst()
            lock.unlock()
            // The runtime marks the task running under the task's lock.
            InterleavingChecker.shared.waitForRuntimeLock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
#endif
