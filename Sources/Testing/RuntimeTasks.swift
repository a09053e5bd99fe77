import ActorPromiseExecutors
import Synchronization

// The asynchronous form of `run`: the body runs as a task whose jobs the runtime runs, on a
// thread of the runtime's own, so that `await promise.value` resumes inside the runtime's order.

extension PromiseTestRuntime: TaskExecutor {
    /// Queues a job of the asynchronous body (or of a child task it starts) behind the runtime's
    /// other jobs.
    public func enqueue(_ job: consuming ExecutorJob) {
        let item = JobItem(UnownedJob(job), serial: nil, task: asUnownedTaskExecutor())
        enqueue(item, on: tasks, ordered: true)
    }

    /// The runtime as a task executor.
    public func asUnownedTaskExecutor() -> UnownedTaskExecutor {
        UnownedTaskExecutor(ordinary: self)
    }
}

/// The context the task jobs of the asynchronous form are recorded under. It only names them:
/// those jobs never leave the runtime (it outlives the body's task).
final class TaskLine: ExecutionContext {
    func submit(_ item: any Runnable) { item.run() }
}

/// What the body's task and the driver thread of one asynchronous run share.
private final class AsyncRunState: Sendable {
    /// The body returned or threw.
    let finished = Atomic<Bool>(false)
    /// Set when the hang guard gave up.
    let stuck = LockedState<StuckRun?>(nil)
}

/// A run that cannot finish: the promise `run` drives can never settle, because nothing in the
/// runtime can run and no timer is due — or, for the asynchronous form, the body made no progress
/// and nothing arrived from outside the runtime for the hang guard's time. It says what was
/// pending then.
public struct StuckRun: Error, CustomStringConvertible {
    /// ``PromiseTestRuntime/pendingReport()`` when the runtime gave up.
    public let pending: [String]
    /// How long the asynchronous form waited for work from outside; `nil` for the synchronous
    /// form, which gives up as soon as the runtime is idle.
    public let idleFor: Duration?

    /// Why the run could not finish, and every pending promise, one per line.
    public var description: String {
        let why = idleFor.map { "nothing could run for \($0) and the body had not finished" }
            ?? "the promise can never settle: nothing left in the runtime can run and no timer is due"
        return "PromiseTestRuntime: \(why); pending:\n"
            + (pending.isEmpty ? "(no promise made in the runtime is pending)" : pending.joined(separator: "\n"))
    }
}

extension PromiseTestRuntime {
    /// Runs an asynchronous `body` as a task whose jobs, and every job it submits, the runtime
    /// runs one at a time on a thread of its own; returns when the body returns.
    ///
    /// `await promise.value` inside the body resumes in the runtime's order. Child tasks
    /// (`async let`, task groups) run in the runtime too; an unstructured `Task {}` does not.
    /// With `autoAdvance`, the clock jumps to the next deadline whenever nothing can run. Work on
    /// other threads (an SDK's callback) still arrives: while nothing can run the runtime waits
    /// for it — up to `hangGuard`, after which it cancels the body and throws ``StuckRun`` with
    /// the pending promises, instead of hanging the test.
    ///
    /// - Parameters:
    ///   - hangGuard: How long the runtime waits, in real time, for work from outside while
    ///     nothing can run, before it gives up.
    ///   - body: The test's asynchronous promise code.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws, or ``StuckRun``.
    @discardableResult
    public func run<Result: Sendable>(
        hangGuard: Duration = .seconds(10),
        _ body: sending @escaping () async throws -> Result
    ) async throws -> Result {
        let state = AsyncRunState()
        let task = Task(executorPreference: self) {
            defer { state.finished.store(true, ordering: .releasing) }
            return try await body()
        }
        let guardSeconds = seconds(hangGuard)
        await withCheckedContinuation { (driven: CheckedContinuation<Void, Never>) in
            startThread(named: "PromiseTestRuntime") {
                self.driveTask(finished: state.finished, guardSeconds: guardSeconds) {
                    state.stuck.withLock { $0 = StuckRun(pending: self.pendingReport(), idleFor: hangGuard) }
                    task.cancel()
                }
                driven.resume()
            }
        }
        let result = await task.result
        if let stuck = state.stuck.withLock({ $0 }) { throw stuck }
        return try result.get()
    }

    /// The driver thread's loop: runs jobs until the body's task has finished, waiting for work
    /// from other threads while nothing can run; calls `giveUp` once if none comes in time.
    private func driveTask(finished: borrowing Atomic<Bool>, guardSeconds: Double, giveUp: () -> Void) {
        runUntilIdleWhile { finished.load(ordering: .acquiring) }
        var gaveUp = false
        while !finished.load(ordering: .acquiring) {
            let arrived = waitForWork(seconds: gaveUp ? nil : guardSeconds) { finished.load(ordering: .acquiring) }
            if !arrived && !gaveUp {
                gaveUp = true
                giveUp()
            }
            runUntilIdleWhile { finished.load(ordering: .acquiring) }
        }
    }
}
