import ActorPromise
import ActorPromiseExecutors

/// Runs the promise code of a test on one thread, in an order that is the same every run, with
/// time that passes only when the test says so.
///
/// Inside `run { … }` every job that the test's thread submits waits in the runtime
/// instead of on a thread: handlers on the default pool; the work of a `SerialQueue`, a
/// `ConcurrentQueue` or an `OperationExecutor` (each keeps its own rules: order, barriers,
/// priorities, suspension, cancellation, width); a `RunLoopThread`'s and a `DispatchQueue`'s
/// handlers; and `.main` handlers when the test runs on the main thread. Every timer on the system
/// clock (`timeout`, `delay`, `Promise.after`, retry back-off) waits on the runtime's clock. The
/// runtime runs the jobs one at a time on the test's thread, and the jobs they submit in turn:
///
/// ```swift
/// @Test func slowServerTimesOut() {
///     let runtime = PromiseTestRuntime(autoAdvance: true)
///     #expect(throws: PromiseError.self) {
///         try runtime.run { server.fetch().timeout(after: .seconds(30)) }   // drives it to its end
///     }
///     #expect(runtime.now == .seconds(30))   // in microseconds of real time
/// }
/// ```
///
/// - **The same order every run.** Without a seed, jobs run in the order they were submitted.
///   With `seed:`, the runtime picks the next job pseudo-randomly from the seed among those that
///   could run next in a real program — the next job of a serial context, any job of the pool —
///   so different seeds explore different orders and the same seed replays one exactly
///   (``explore(seeds:autoAdvance:_:)``).
/// - **Virtual time.** ``advance(by:)`` moves the clock, firing due timers in deadline order and
///   running what each releases before the next fires. With `autoAdvance: true`, whenever no job
///   can run the clock jumps to the next deadline.
/// - **Idle is exact.** ``runUntilIdle()`` returns when no job is queued and no timer is due;
///   nothing is inferred from quiet periods. ``pendingReport()`` lists what is still pending.
/// - **`wait()` drives the runtime.** Inside `run`, `promise.wait()` runs jobs (and, with
///   `autoAdvance`, time) until the promise settles, and throws `PromiseError.wouldDeadlock`
///   if nothing left could settle it.
///
/// Only the thread the runtime drives is affected: other tests, running in parallel, and other
/// threads (an SDK's callback queue) submit to their contexts as always, and that work runs there,
/// outside the runtime's order. `.main` handlers are driven only when the test runs on the main
/// thread (a `@MainActor` test), where they are main-actor code; elsewhere they go to the main
/// queue as always. A Foundation `OperationQueue` is not driven.
///
/// Lifecycle: releasing the runtime hands the jobs it still holds to the contexts they were
/// submitted to, which run them as always (nothing is lost), and cancels its pending timers,
/// releasing what their actions hold — a promise only a timer could settle is then abandoned
/// (`PromiseError.abandoned`).
public final class PromiseTestRuntime: Sendable {
    /// The jobs, with a condition that the asynchronous form waits on for jobs from other threads.
    private let schedule: LockedState<JobSchedule>
    private let time = ManualScheduler()
    private let autoAdvance: Bool
    /// Reports of the promises made while the runtime drove (debug builds).
    private let made = LockedState<[PendingReporter]>([])
    private let trace = LockedState<[String]>([])
    /// The line of the asynchronous form's task jobs.
    let tasks = TaskLine()

    /// Creates a runtime at time zero.
    ///
    /// - Parameters:
    ///   - seed: Picks the order among the jobs that could run next; `nil` runs jobs in
    ///     submission order.
    ///   - autoAdvance: Whether the clock jumps to the next deadline whenever no job can run.
    public init(seed: UInt64? = nil, autoAdvance: Bool = false) {
        schedule = LockedState(JobSchedule(seed: seed))
        self.autoAdvance = autoAdvance
    }

    deinit {
        for (job, context) in schedule.withLock({ $0.removeAll() }) { context.submit(job) }
        time.cancelAll()
    }

    /// The virtual time elapsed since the runtime was made.
    public var now: Duration { time.elapsed }

    /// How many jobs wait to run.
    public var queuedJobCount: Int { schedule.withLock { $0.count } }

    /// How many timers wait for their deadline.
    public var pendingTimerCount: Int { time.pendingCount }

    // MARK: Driving

    /// Runs `body` on this thread with the runtime taking this thread's jobs and timers, then
    /// runs until idle (see ``runUntilIdle()``).
    ///
    /// - Parameter body: The test's promise code. What it throws is rethrown, after the runtime
    ///   ran until idle.
    /// - Returns: What `body` returns.
    @discardableResult
    public func run<Result>(_ body: () throws -> Result) rethrows -> Result {
        try driving {
            defer { drain(until: { false }) }
            return try body()
        }
    }

    /// Runs `body`, which returns a promise, then drives the runtime until that promise settles,
    /// and returns its value — then runs until idle.
    ///
    /// ```swift
    /// let runtime = PromiseTestRuntime(autoAdvance: true)
    /// let value = try runtime.run {
    ///     Promise<Int>.retry(attempts: 5, delay: .fixed(.seconds(10))) { _ in flakyRequest() }
    ///         .timeout(after: .seconds(30))
    /// }
    /// ```
    ///
    /// A one-expression body that returns a promise takes this form. A body of several statements
    /// takes it when its type or the result's says so — `{ () -> Promise<Int> in … }`, or
    /// `let value: Int = try runtime.run { … }`; otherwise Swift picks the general form, which
    /// returns the promise itself.
    ///
    /// - Parameter body: Makes the promise, with the runtime taking this thread's jobs and timers.
    /// - Returns: The promise's value.
    /// - Throws: What `body` throws; the promise's error; or, if nothing left in the runtime could
    ///   settle it (no job, and no timer due — with `autoAdvance`, no timer at all), ``StuckRun``
    ///   at once, which holds ``pendingReport()``.
    @discardableResult
    public func run<Value>(_ body: () throws -> Promise<Value>) throws -> Value {
        try driving {
            defer { drain(until: { false }) }
            let promise = try body()
            drain(until: { !promise.isPending })
            guard let outcome = promise.takenSettledOutcome else { throw StuckRun(pending: pendingReport(), idleFor: nil) }
            return try outcome.get()
        }
    }

    /// Runs queued jobs, and the jobs they submit, until none is left and no timer is due — with
    /// `autoAdvance`, until no timer is left either.
    ///
    /// - Returns: ``pendingReport()``: what is still pending once idle.
    @discardableResult
    public func runUntilIdle() -> [String] {
        driving { drain(until: { false }) }
        return pendingReport()
    }

    /// Moves the clock forward by `duration`: fires each timer that falls due, in deadline order,
    /// and runs the jobs it releases before the next one fires. The clock stops at the target,
    /// `autoAdvance` or not.
    ///
    /// - Parameter duration: How far to move the clock.
    public func advance(by duration: Duration) {
        driving {
            let target = time.elapsed + duration
            repeat { runJobs() } while time.fireNext(dueBy: target)
            time.moveTime(to: target)
        }
    }

    /// Installs the runtime on this thread for `body`, restoring what was there before.
    private func driving<Result>(_ body: () throws -> Result) rethrows -> Result {
        let previous = ThreadState.withCurrent { thread in
            defer { thread.interceptor = self }
            return thread.interceptor
        }
        defer { ThreadState.withCurrent { $0.interceptor = previous } }
        return try body()
    }

    /// Runs jobs until `isDone`, or until none is left and (with `autoAdvance`) no timer either.
    private func drain(until isDone: () -> Bool) {
        while !isDone() {
            if runOne() { continue }
            guard autoAdvance, let deadline = time.nextDeadline, time.fireNext(dueBy: deadline) else { return }
        }
    }

    /// Drives this thread until `isDone` or idle (the asynchronous form's driver thread).
    func runUntilIdleWhile(_ isDone: () -> Bool) {
        driving { drain(until: isDone) }
    }

    /// Waits until a job is queued or `isDone`, up to `seconds` (`nil`: no limit); returns whether
    /// one of the two happened.
    func waitForWork(seconds: Double?, _ isDone: () -> Bool) -> Bool {
        let deadline = seconds.map { monotonicSeconds() + $0 }
        return schedule.withLock(waiting: { schedule in
            if schedule.count > 0 || isDone() { return .done(true) }
            guard let deadline else { return .wait(seconds: nil) }
            let left = deadline - monotonicSeconds()
            return left > 0 ? .wait(seconds: left) : .done(false)
        })
    }

    /// Runs jobs until none is left.
    private func runJobs() {
        while runOne() {}
    }

    private func runOne() -> Bool {
        guard let (job, context) = schedule.withLock({ $0.pop() }) else { return false }
        trace.withLock { $0.append(Self.name(of: context)) }
        job.run()
        return true
    }

    /// The contexts whose jobs ran, in the order they ran: the order a seed chose, to read when a
    /// seed fails.
    public var order: [String] { trace.withLock { $0 } }

    private static func name(of context: any ExecutionContext) -> String {
        switch context {
        case let queue as SerialQueue: "SerialQueue(\(queue.label))"
        case let queue as ConcurrentQueue: "ConcurrentQueue(\(queue.label))"
        case is WorkerPool: "pool"
        case is MainContext: "main"
        case is TaskLine: "task"
        default: String(describing: type(of: context))
        }
    }

    // MARK: Reports

    /// What is still pending among the promises made while the runtime drove (debug builds, which
    /// record them; release builds list none): for each, its type, where it was made, who waits
    /// for it (observers, children) and what it waits for — its parent, the promise it follows,
    /// its handler, or its resolver (held by the work, a timer, or a lazy body nobody observed).
    /// A job queued on a suspended `OperationExecutor` shows as a promise waiting for its handler.
    ///
    /// - Returns: One line per pending promise, oldest first; empty if none is pending.
    public func pendingReport() -> [String] {
        made.withLock { reports in
            var pending: [String] = []
            reports.removeAll { reporter in
                guard let line = reporter.report() else { return true }
                pending.append(line)
                return false
            }
            return pending
        }
    }
}

extension PromiseTestRuntime: TimerInterceptor {
    package func enqueue(_ item: any Runnable, on context: any ExecutionContext, ordered: Bool) {
        schedule.withLockWakingWaiters { $0.push(item, on: context, ordered: ordered) }
    }

    package var clock: ManualScheduler { time }

    package func drive(until isDone: () -> Bool) {
        drain(until: isDone)
    }

    package func record(_ report: @escaping @Sendable () -> String?) {
        made.withLock { $0.append(PendingReporter(report: report)) }
    }
}

/// A recorded promise's report, boxed: function values kept in generic storage are better not
/// read back through it (see `DiagnosticHook`).
private final class PendingReporter: Sendable {
    let report: @Sendable () -> String?
    init(report: @escaping @Sendable () -> String?) { self.report = report }
}
