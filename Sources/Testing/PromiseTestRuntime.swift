import ActorPromise
import ActorPromiseExecutors
import Synchronization

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
/// Only the test the runtime drives is affected: other tests, running in parallel, and other
/// threads submit to their contexts as always, and that work runs there, outside the runtime's
/// order. A completion handler made with `resolver.completion()` (or a sibling) while the runtime
/// drives is the exception: what it delivers runs as the runtime's job, and until it is called the
/// clock does not jump (up to `outsideWorkTimeout`) — unless the promise body that made it also
/// started a job or a timer of the runtime (a fake on the runtime's clock), which then answers it
/// (``Callbacks`` says how a test decides otherwise). A raw resolver handed to another thread is
/// invisible to the runtime. `.main` handlers are driven in a `@MainActor` test,
/// where they are main-actor code; elsewhere they go to the main queue as always. A Foundation
/// `OperationQueue` is not driven.
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
    /// How long the runtime waits, in real time, for a callback handed to work outside it.
    let outsideWorkTimeout: Duration
    /// Where completion handlers made under the runtime are taken to be answered.
    let callbacks: Callbacks
    /// Why the last drive gave up while work was left: callbacks from outside that never came.
    private let gaveUp = LockedState<String?>(nil)
    /// Whether `autoAdvance` has moved the clock, and the promises settled from outside the
    /// runtime after it had (debug builds tell): not yet reported to the test.
    private let overtaken = LockedState<(clockJumped: Bool, promises: [(what: String, advice: String)])>((false, []))
    /// The context the jobs that outside callbacks deliver are recorded under.
    private let outsideLine = OutsideLine()
    private let trace = LockedState<[String]>([])
    /// The line of the asynchronous form's task jobs.
    let tasks = TaskLine()
    /// This runtime's number among every runtime the process has made, from 1: what its
    /// reports pick the promises made under it by.
    package let serialNumber = PromiseTestRuntime.runtimesMade.add(1, ordering: .relaxed).newValue
    private static let runtimesMade = Atomic<UInt64>(0)

    /// Creates a runtime at time zero, which tells where each completion handler is answered by
    /// where it was made (``Callbacks/inferred``).
    ///
    /// - Parameters:
    ///   - seed: Picks the order among the jobs that could run next; `nil` runs jobs in
    ///     submission order.
    ///   - autoAdvance: Whether the clock jumps to the next deadline whenever no job can run.
    ///     Without it the clock moves only when the test calls ``advance(by:)``.
    ///   - outsideWorkTimeout: How long, in real time, the runtime waits for a completion
    ///     handler it handed to work outside it (`resolver.completion()` and its siblings, made
    ///     while the runtime drives) before it gives up; while one is outstanding the clock never
    ///     jumps. A pause of the whole process (a suspended virtual machine) counts at most a
    ///     second of it.
    public convenience init(seed: UInt64? = nil, autoAdvance: Bool = false, outsideWorkTimeout: Duration = .seconds(10)) {
        self.init(seed: seed, autoAdvance: autoAdvance, outsideWorkTimeout: outsideWorkTimeout, callbacks: .inferred)
    }

    /// Creates a runtime at time zero that takes completion handlers to be answered as
    /// `callbacks` says.
    ///
    /// - Parameters:
    ///   - seed: Picks the order among the jobs that could run next; `nil` runs jobs in
    ///     submission order.
    ///   - autoAdvance: Whether the clock jumps to the next deadline whenever no job can run.
    ///   - outsideWorkTimeout: How long, in real time, the runtime waits for a completion
    ///     handler that holds its clock before it gives up. A pause of the whole process counts
    ///     at most a second of it.
    ///   - callbacks: Where completion handlers are answered: on other threads, so that the clock
    ///     waits for them; on the runtime's clock (fakes), so that it does not; or ``Callbacks/inferred``
    ///     from where each was made.
    public init(seed: UInt64? = nil, autoAdvance: Bool = false, outsideWorkTimeout: Duration = .seconds(10), callbacks: Callbacks) {
        schedule = LockedState(JobSchedule(seed: seed))
        self.autoAdvance = autoAdvance
        self.outsideWorkTimeout = outsideWorkTimeout
        self.callbacks = callbacks
        creationWatchers.wrappingAdd(1, ordering: .relaxed)
    }

    deinit {
        creationWatchers.wrappingSubtract(1, ordering: .relaxed)
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
        gaveUp.withLock { $0 = nil }
        defer { reportOvertakenWork() }
        return try driving {
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
    ///     Promise<Int>.retry(attempts: 5, delay: .fixed(.seconds(10))) { _ in server.request() }
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
        gaveUp.withLock { $0 = nil }
        defer { reportOvertakenWork() }
        return try driving {
            defer { drain(until: { false }) }
            let promise = try body()
            drain(until: { !promise.isPending })
            guard let outcome = promise.takenSettledOutcome else { throw stuckRun(idleFor: nil) }
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
        reportOvertakenWork()
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
            repeat { runJobs() } while fireEarliest(dueBy: target)
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
    /// While a callback handed to work outside is outstanding, it waits for it (real time, up
    /// to `outsideWorkTimeout`) before the clock may jump.
    private func drain(until isDone: () -> Bool) {
        while !isDone() {
            if runOne() { continue }
            // One look at both: a callback that delivers stops being awaited and queues its job
            // under the same lock, so a job it queued since `runOne` is seen here.
            let (queued, awaited) = schedule.withLock { ($0.count > 0, $0.awaitsOutsideWork()) }
            if queued { continue }
            if awaited {
                if waitForOutsideWork(isDone) { continue }
                return
            }
            // Once the run gave up on outside work, the clock stays: jumping now would fire the
            // very timeouts that work was to beat.
            guard autoAdvance, gaveUp.withLock({ $0 == nil }), let deadline = time.nextDeadline,
                  fireEarliest(dueBy: deadline, jumping: true) else { return }
        }
    }

    /// Fires every timer due at the earliest deadline by `target`, in an order the seed picks
    /// (as a program's timers due together may fire), before any job they release runs; returns
    /// whether any fired.
    private func fireEarliest(dueBy target: Duration, jumping: Bool = false) -> Bool {
        var due = time.takeEarliestDue(by: target)
        guard !due.isEmpty else { return false }
        if jumping { overtaken.withLock { $0.clockJumped = true } }
        schedule.withLock { $0.shuffle(&due) }
        for action in due { action.fire() }
        return true
    }

    /// Waits until an outside callback delivers, is released, or `isDone`; returns `false`, and
    /// records why, if none of them happens within `outsideWorkTimeout`.
    private func waitForOutsideWork(_ isDone: () -> Bool) -> Bool {
        var waited = WaitedTime()
        let limit = seconds(outsideWorkTimeout)
        let arrived = schedule.withLock(waiting: { schedule in
            if schedule.count > 0 || !schedule.awaitsOutsideWork() || isDone() { return .done(true) }
            let left = limit - waited.look()
            return left > 0 ? .wait(seconds: min(left, WaitedTime.maxStep)) : .done(false)
        })
        // Work that came in the instant between counts as arrived.
        return arrived || !giveUpOnOutsideWork(after: outsideWorkTimeout)
    }

    /// Drives this thread until `isDone` or idle (the asynchronous form's driver thread).
    func runUntilIdleWhile(_ isDone: () -> Bool) {
        driving { drain(until: isDone) }
    }

    /// One turn of the main-actor form's driver: runs the queued jobs on this (the main) thread,
    /// and, if none is left and `advancesClock`, fires the timers due at the next deadline (with
    /// `autoAdvance`). Never waits. Returns whether anything ran or fired.
    func turn(advancesClock: Bool) -> Bool {
        driving {
            var ran = false
            while runOne() { ran = true }
            // Idle in one look (see `drain`): no job queued by a callback meanwhile, none awaited.
            if !ran, advancesClock, autoAdvance, gaveUp.withLock({ $0 == nil }),
               schedule.withLock({ $0.count == 0 && !$0.awaitsOutsideWork() }), let deadline = time.nextDeadline {
                ran = fireEarliest(dueBy: deadline, jumping: true)
            }
            return ran
        }
    }

    /// Whether a job waits, or (with `autoAdvance`) a timer could fire: the main-actor driver
    /// has something to do.
    var hasQueuedJobs: Bool { schedule.withLock { $0.count > 0 } }

    /// Whether outside work the runtime knows of may still deliver.
    var awaitsOutsideWork: Bool { schedule.withLock { $0.awaitsOutsideWork() } }

    /// Records that the runtime stopped waiting for the outside work it knew of; returns whether
    /// there was any left to give up on.
    @discardableResult
    func giveUpOnOutsideWork(after timeout: Duration) -> Bool {
        let late = schedule.withLock { $0.giveUpOutsideWork() }
        guard !late.isEmpty else { return false }
        gaveUp.withLock { $0 = outsideWorkMissing(late, after: timeout) }
        return true
    }

    /// Why a run gave up on work outside the runtime, which rule said it was outside, and what
    /// decides it.
    func outsideWorkMissing(_ late: [String], after timeout: Duration) -> String {
        let assumed = switch callbacks {
        case .inferred:
            "the runtime took it for work on another thread (an SDK's queue) because it was made outside a promise "
                + "body, or in a body that started no job or timer of the runtime (PromiseTestRuntime.Callbacks.inferred); "
                + "if a fake on the runtime's clock answers it, make the runtime with callbacks: .onTheVirtualClock"
        case .fromOtherThreads:
            "the runtime was made with callbacks: .fromOtherThreads, so it waits for every completion handler; "
                + "if a fake on the runtime's clock answers this one, make it with callbacks: .inferred or .onTheVirtualClock"
        case .onTheVirtualClock:
            "the runtime was made with callbacks: .onTheVirtualClock"
        }
        return "\(late.joined(separator: "; ")) did not deliver within \(timeout) of real time: \(assumed) "
            + "(outsideWorkTimeout sets how long the runtime waits)"
    }

    /// Waits until a job is queued or `isDone`, up to `seconds` (`nil`: no limit); returns whether
    /// one of the two happened.
    func waitForWork(seconds limit: Double?, _ isDone: () -> Bool) -> Bool {
        var waited = WaitedTime()
        return schedule.withLock(waiting: { schedule in
            if schedule.count > 0 || isDone() { return .done(true) }
            guard let limit else { return .wait(seconds: nil) }
            let left = limit - waited.look()
            return left > 0 ? .wait(seconds: min(left, WaitedTime.maxStep)) : .done(false)
        })
    }

    /// Runs jobs until none is left.
    private func runJobs() {
        while runOne() {}
    }

    private func runOne() -> Bool {
        guard let (job, context) = schedule.withLock({ $0.pop() }) else { return false }
        trace.withLock { $0.append(Self.name(of: job, on: context)) }
        job.run()
        return true
    }

    /// The jobs that ran, in the order they ran — each as its context and what it was ("pool:
    /// handler of the promise made at Bank.swift:12"; the sites are recorded in debug builds): the
    /// order a seed chose, to read when a seed fails.
    public var order: [String] { trace.withLock { $0 } }

    private static func name(of job: any Runnable, on context: any ExecutionContext) -> String {
        let described = (job as? any DescribedJob)?.jobDescription
            ?? ((job as? RunningItem)?.item as? any DescribedJob)?.jobDescription
        return described.map { "\(name(of: context)): \($0)" } ?? name(of: context)
    }

    private static func name(of context: any ExecutionContext) -> String {
        switch context {
        case let queue as SerialQueue: "SerialQueue(\(queue.label))"
        case let queue as ConcurrentQueue: "ConcurrentQueue(\(queue.label))"
        case is WorkerPool: "pool"
        case is MainContext: "main"
        case is TaskLine: "task"
        case is OutsideLine: "outside callback"
        default: String(describing: type(of: context))
        }
    }

    // MARK: Reports

    /// What is still pending among the promises made while the runtime drove, as
    /// `PromiseDiagnostics.pendingSnapshot()` draws it: each promise once, under the promise it
    /// waits for, with its type, where it was made, how long it has been pending and what it
    /// waits on — its parent, the promise it follows, its handler (queued on a suspended
    /// `OperationExecutor`, say), its resolver, a completion handler, a task, a timer, a lazy
    /// body nobody observed, a combinator's inputs. Debug builds track every promise; release
    /// builds only while `PromiseDiagnostics.tracksPending` is on.
    ///
    /// - Returns: One line per pending promise (a long chain or a large subtree summarised in a
    ///   line), oldest tree first; empty if none is pending.
    public func pendingReport() -> [String] {
        PromiseDiagnostics.pendingSnapshot().made(under: serialNumber).lines
    }
}

extension PromiseTestRuntime {
    /// Why a run cannot finish, in words: for ``StuckRun``.
    func stuckRun(idleFor: Duration?) -> StuckRun {
        let reason: String
        if let gaveUp = gaveUp.withLock({ $0 }) {
            reason = gaveUp
        } else if isStuckOnTheClock {
            let timers = time.pendingCount == 1 ? "a timer waits" : "\(time.pendingCount) timers wait"
            reason = "nothing in the runtime can run, and \(timers) for a later time — but this runtime's clock "
                + "moves only when the test calls advance(by:); make it with autoAdvance: true to let the clock "
                + "jump to the next deadline"
        } else if let idleFor {
            reason = "nothing could run for \(idleFor) and the body had not finished"
        } else {
            reason = "the promise can never settle: nothing left in the runtime can run and no timer is due"
        }
        let pending = pendingReport()
        let hint = pending.contains { $0.contains("waits for its resolver") }
            ? " (if work outside the runtime holds a resolver — an SDK's callback, another thread — make its promise "
                + "with Promise { resolver in … } or hand the work resolver.completion(): the runtime then waits for it)"
            : ""
        return StuckRun(pending: pending, idleFor: idleFor, reason: reason + hint)
    }

    /// Whether a run that got stuck got stuck only because the clock does not move by itself.
    var isStuckOnTheClock: Bool { !autoAdvance && time.pendingCount > 0 }
}

extension PromiseTestRuntime: OutsideWorkTracker {
    package func settledFromOutside(_ promise: String) {
        recordOvertaken(promise, advice: Self.pendingResolverAdvice)
    }

    package func outsideCallbackStarted(_ callback: OutsideCallback) {
        schedule.withLock { $0.callbackMade(ObjectIdentifier(callback), label: callback.label, holdsClock: callbacks != .onTheVirtualClock) }
    }

    package func outsideCallbackEnded(_ callback: OutsideCallback, first: Bool, delivery: (@Sendable () -> Void)?) {
        let wasAwaited = schedule.withLockWakingWaiters { schedule in
            defer { if let delivery { schedule.push(ClosureWorkItem(delivery), on: outsideLine, ordered: true, fromOutside: true) } }
            return first && schedule.callbackEnded(ObjectIdentifier(callback))
        }
        // Called from another thread although the runtime took it for its own work: its clock
        // may have run ahead of that thread.
        if first, delivery != nil, !wasAwaited {
            recordOvertaken(callback.label, advice: Self.presumedCallbackAdvice)
        }
    }

    package func bodyBegan() -> BodyMark {
        let timers = time.scheduledTotal
        return schedule.withLock { BodyMark(work: $0.pushes + timers, callbacks: $0.callbacksMade) }
    }

    package func bodyEnded(_ mark: BodyMark) -> Bool {
        let timers = time.scheduledTotal
        return schedule.withLockWakingWaiters { schedule in
            let startedWork = schedule.pushes + timers != mark.work
            let madeCallbacks = schedule.callbacksMade != mark.callbacks
            switch callbacks {
            case .inferred:
                // A body that started a job or a timer is answered by it: a fake on the clock.
                if startedWork { schedule.releaseCallbacks(madeSince: mark.callbacks) }
                return !startedWork && !madeCallbacks
            case .fromOtherThreads:
                return !madeCallbacks
            case .onTheVirtualClock:
                return false
            }
        }
    }
}

/// The context the deliveries of outside callbacks are recorded under. It only names them: those
/// jobs never leave the runtime, or run at once if it is gone.
final class OutsideLine: ExecutionContext {
    func submit(_ item: any Runnable) { item.run() }
}

extension PromiseTestRuntime: TimerInterceptor {
    package func enqueue(_ item: any Runnable, on context: any ExecutionContext, ordered: Bool) {
        schedule.withLockWakingWaiters { $0.push(item, on: context, ordered: ordered) }
    }

    package var clock: ManualScheduler { time }

    package func drive(until isDone: () -> Bool) {
        drain(until: isDone)
    }

}

extension PromiseTestRuntime {
    /// Fails the current test (Swift Testing) — or, outside a test, prints a warning — for each
    /// promise or completion handler that work outside the runtime settled after `autoAdvance` had
    /// moved the clock: a timeout or delay may have fired before that work could deliver, which a
    /// program would not do, and the runtime could not know. Called where a run ends, on the test's
    /// thread.
    func reportOvertakenWork() {
        let promises = overtaken.withLock { state in
            defer { state.promises = [] }
            return state.promises
        }
        for (what, advice) in promises {
            let message = "PromiseTestRuntime: \(what) was settled from a thread the runtime does not drive, after "
                + "autoAdvance had moved its clock: a timeout or a delay may have fired before that work delivered, "
                + "which a program would not do. " + advice
            reportTestFailure(message)
        }
    }

    /// Keeps `what` for ``reportOvertakenWork()`` if `autoAdvance` has moved the clock.
    func recordOvertaken(_ what: String, advice: String) {
        overtaken.withLock { if $0.clockJumped { $0.promises.append((what, advice)) } }
    }

    /// What to do about a `Promise.pending()` resolver that another thread settled.
    static let pendingResolverAdvice = "Hand the work a completion handler made with resolver.completion() "
        + "(the runtime waits for those before its clock moves), or make the runtime with autoAdvance: false "
        + "and move the clock with advance(by:)."

    /// What to do about a completion handler the runtime took for its own work.
    static let presumedCallbackAdvice = "The runtime took the handler for work on its own clock, since the "
        + "promise body that made it started a job or a timer of the runtime; make the runtime with "
        + "callbacks: .fromOtherThreads to have its clock wait for every completion handler."
}

extension PromiseTestRuntime {
    /// Where the completion handlers that code under a runtime makes (`resolver.completion()` and
    /// its siblings) are answered, and so whether the runtime's clock waits for them.
    ///
    /// A handler answered by work on another thread — an SDK's queue — must hold the clock until
    /// it is called, or a timeout on the virtual clock would fire a microsecond after the request
    /// left. A handler answered by a fake on the runtime's own clock must not, or the clock would
    /// wait for the very timer that calls it.
    public enum Callbacks: Sendable, Equatable {
        /// Tells by where each handler was made. One made in a promise body
        /// (`Promise { resolver in … }`, `withCompletion`) that started a job or a timer of the
        /// runtime is answered by that work, and does not hold the clock; any other — made in a
        /// body that started nothing the runtime sees, or outside a body — holds it until called.
        /// A body that starts nothing the runtime sees and leaves its promise pending holds the
        /// clock the same way. The default.
        case inferred
        /// Every handler, and every body's resolver left pending, is answered on another thread:
        /// the clock waits for each until it is called (up to `outsideWorkTimeout`).
        case fromOtherThreads
        /// Every handler is answered by work the runtime drives (fakes on its clock): the clock
        /// never waits for one, nor for a body's resolver.
        case onTheVirtualClock
    }
}
