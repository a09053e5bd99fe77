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
/// runtime can run and no timer is due (or timers wait but the clock does not advance by itself),
/// or a completion handler handed to work outside was never called — or, for the asynchronous
/// form, the body made no progress and nothing arrived from outside the runtime for the hang
/// guard's time. It says why, and what was pending then.
public struct StuckRun: Error, CustomStringConvertible {
    /// ``PromiseTestRuntime/pendingReport()`` when the runtime gave up.
    public let pending: [String]
    /// How long the asynchronous form waited for work from outside; `nil` for the synchronous
    /// form, which gives up as soon as the runtime is idle.
    public let idleFor: Duration?
    /// Why the runtime gave up, and the option that decides it when there is one (`autoAdvance`,
    /// `outsideWorkTimeout`).
    public let reason: String

    /// Why the run could not finish, and every pending promise, one per line.
    public var description: String {
        "PromiseTestRuntime: \(reason); pending:\n"
            + (pending.isEmpty ? "(no promise made in the runtime is pending)" : pending.joined(separator: "\n"))
    }
}

extension PromiseTestRuntime {
    /// Runs an asynchronous `body` as a task whose jobs, and every job it submits, the runtime
    /// runs one at a time; returns when the body returns and the runtime is idle.
    ///
    /// `await promise.value` inside the body resumes in the runtime's order. Child tasks
    /// (`async let`, task groups) run in the runtime too; an unstructured `Task {}` does not.
    /// With `autoAdvance`, the clock jumps to the next deadline whenever nothing can run. Work on
    /// other threads (an SDK's callback) still arrives: while nothing can run the runtime waits
    /// for it — up to `hangGuard`, after which it cancels the body and throws ``StuckRun`` with
    /// the pending promises, instead of hanging the test.
    ///
    /// Called from the main actor (a `@MainActor` test), the body is main-actor code and the
    /// runtime drives it from the main actor, in turns: a view model's `.main` handlers, its
    /// timeouts and its completion handlers run in the runtime's order and on its clock, while
    /// other tests' main-actor code runs as always. Elsewhere the runtime drives the body from a
    /// thread of its own.
    ///
    /// - Parameters:
    ///   - isolation: The caller's actor (filled in for you): the main actor makes the runtime
    ///     drive from the main actor.
    ///   - hangGuard: How long the runtime waits, in real time, for work from outside while
    ///     nothing can run, before it gives up. A pause of the whole process (a suspended virtual
    ///     machine) counts at most a second of it.
    ///   - body: The test's asynchronous promise code.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws, or ``StuckRun``.
    @discardableResult
    public func run<Result: Sendable>(
        isolation: isolated (any Actor)? = #isolation,
        hangGuard: Duration = .seconds(10),
        @_inheritActorContext _ body: sending @escaping @isolated(any) () async throws -> Result
    ) async throws -> Result {
        if let isolation, isolation === MainActor.shared {
            return try await runOnMainActor(hangGuard: hangGuard, body)
        }
        let state = AsyncRunState()
        let task = Task(executorPreference: self) {
            defer { state.finished.store(true, ordering: .releasing) }
            return try await body()
        }
        let guardSeconds = seconds(hangGuard)
        await withCheckedContinuation { (driven: CheckedContinuation<Void, Never>) in
            startThread(named: "PromiseTestRuntime") {
                self.driveTask(finished: state.finished, guardSeconds: guardSeconds) {
                    state.stuck.withLock { $0 = self.stuckRun(idleFor: hangGuard) }
                    task.cancel()
                }
                driven.resume()
            }
        }
        let result = await task.result
        reportOvertakenWork()
        if let stuck = state.stuck.withLock({ $0 }) { throw stuck }
        return try result.get()
    }

    /// The main-actor form: the runtime drives the body's task from the main actor, in turns,
    /// and lets the main actor run the body's main-actor code between them. The body's task (and
    /// its child tasks) hands its jobs and timers to this runtime wherever its code runs — on the
    /// main actor included — through a task-local, so a `@MainActor` view model's `.main`
    /// handlers, timeouts and callbacks run in the runtime's order and on its clock, while other
    /// tests' main-actor code is untouched.
    @MainActor
    private func runOnMainActor<Result: Sendable>(
        hangGuard: Duration, _ body: sending @escaping @isolated(any) () async throws -> Result
    ) async throws -> Result {
        TaskInterception.drivers.wrappingAdd(1, ordering: .relaxed)
        defer { TaskInterception.drivers.wrappingSubtract(1, ordering: .relaxed) }
        let state = AsyncRunState()
        let task = Task(executorPreference: self) { [self] in
            defer { state.finished.store(true, ordering: .releasing) }
            return try await TaskInterception.$interceptor.withValue(self) { try await body() }
        }
        var idle = WaitedTime()
        while !state.finished.load(ordering: .acquiring) {
            // Jobs first; then let the main actor run what the body queued there (a yield puts
            // this driver behind it), and only when neither made progress does the clock move.
            var progressed = turn(advancesClock: false)
            for _ in 0..<3 { await Task.yield() }
            if hasQueuedJobs { progressed = true }
            if !progressed, !state.finished.load(ordering: .acquiring) { progressed = turn(advancesClock: true) }
            if progressed {
                idle = WaitedTime()
                continue
            }
            // Idle: wait, without holding the main actor, for work from outside the runtime.
            let waited = Duration.seconds(idle.look())
            let outstanding = awaitsOutsideWork
            if outstanding ? waited > outsideWorkTimeout : waited > hangGuard {
                if outstanding { giveUpOnOutsideWork(after: outsideWorkTimeout) }
                state.stuck.withLock { $0 = self.stuckRun(idleFor: outstanding ? nil : hangGuard) }
                task.cancel()
                break
            }
            try? await Task.sleep(for: .milliseconds(1))
        }
        if state.stuck.withLock({ $0 }) == nil {
            // As the other forms do: run until idle once the body has returned.
            while turn(advancesClock: false) || turn(advancesClock: true) { await Task.yield() }
        }
        let result = await task.result
        reportOvertakenWork()
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
