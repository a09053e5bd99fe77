import ActorPromiseExecutors

/// Work that can be run again: a body that builds a fresh promise per run, with retry policies
/// layered on top (R11).
///
/// Promises themselves never reset — a settled promise stays settled. Retrying means running the
/// body again for a new promise, which is what `Retryable` does:
///
/// ```swift
/// let request = Retryable { _ in api.fetchUser(id) }
///     .retry(attempts: 3, delay: .exponential(initial: .milliseconds(200), jitter: 0.5))
///     .reuse()                  // a value once obtained is handed to later runs
/// let user = request.run()      // a plain promise to hand out: this run, with its retries
/// ```
///
/// Retries cascade: a `Retryable` retried inside another is re-run by the outer policy, so
/// `.retry(attempts: 3).retry(attempts: 2)` makes up to 6 attempts — use ``reuse()`` or hand out
/// the promise of one ``run(fileID:line:)`` to stop that.
///
/// Cancelling a promise returned by ``run(fileID:line:)``, or its last waiter, stops future
/// attempts and stops waiting for the attempt that is running, which then cancels itself and its
/// work unless somebody else waits for it (B7).
public struct Retryable<Value: Sendable>: Sendable {
    /// Builds the promise of one attempt; `site` is where the run was asked for, which the
    /// promises a policy makes for the run record (debug builds).
    private let body: @Sendable (_ attempt: Int, _ site: PromiseSite) -> Promise<Value>

    /// Work whose body builds a new promise for each run; `attempt` counts from 1 within a run of
    /// the innermost retry policy.
    public init(_ body: @escaping @Sendable (_ attempt: Int) -> Promise<Value>) {
        self.body = { attempt, _ in body(attempt) }
    }

    private init(site body: @escaping @Sendable (_ attempt: Int, _ site: PromiseSite) -> Promise<Value>) {
        self.body = body
    }

    /// Runs the work once more — with its retry policies, if any — and returns that run's promise:
    /// the single value to hand out, which later runs never change.
    ///
    /// - Parameters:
    ///   - fileID: Where the run is asked for: the site the run's promise records in debug builds,
    ///     when a retry policy or ``reuse()`` makes it (filled in for you).
    ///   - line: The line of that site (filled in for you).
    /// - Returns: A new promise per call. Cancelling it stops this run (see above).
    public func run(fileID: StaticString = #fileID, line: UInt = #line) -> Promise<Value> {
        body(1, PromiseSite(fileID: fileID, line: line, operation: .retry))
    }

    /// Retries a failed run up to `attempts` attempts in total, waiting `delay` between them.
    ///
    /// - Parameters:
    ///   - attempts: The most attempts per run, the first included (at least 1).
    ///   - delay: The wait between attempts.
    ///   - scheduler: The source of time; tests pass a `ManualScheduler`.
    ///   - shouldRetry: Whether an error is worth another attempt; by default every error but a
    ///     cancellation is.
    public func retry(
        attempts: Int,
        delay: RetryDelay = .none,
        scheduler: any PromiseScheduler = .system,
        if shouldRetry: @escaping @Sendable (any Error) -> Bool = { !$0.isCancellation }
    ) -> Retryable {
        let attempts = max(1, attempts)
        return retry(scheduler: scheduler, attempts: attempts) { attempt, error in
            guard attempt < attempts, shouldRetry(error) else { return .stop }
            let wait = delay.duration(afterAttempt: attempt)
            return wait <= .zero ? .retry : .retryAfter(wait)
        }
    }

    /// Retries a failed run as `decide` says, per attempt: now, after a wait, or not at all.
    ///
    /// - Parameters:
    ///   - scheduler: The source of time for `.retryAfter`.
    ///   - decide: Gets the number of the attempt that failed (from 1) and its error.
    public func retry(
        scheduler: any PromiseScheduler = .system,
        decide: @escaping @Sendable (_ attempt: Int, _ error: any Error) -> RetryDecision
    ) -> Retryable {
        retry(scheduler: scheduler, attempts: nil, decide: decide)
    }

    /// ``retry(scheduler:decide:)``, knowing the most attempts when there is such a number, for
    /// failure traces (`retry attempt 3 of 3`, R16).
    private func retry(
        scheduler: any PromiseScheduler, attempts: Int?,
        decide: @escaping @Sendable (_ attempt: Int, _ error: any Error) -> RetryDecision
    ) -> Retryable {
        let body = body
        return Retryable(site: { _, site in
            RetryDriver(
                body: { attempt in body(attempt, site) }, site: site, attempts: attempts, scheduler: scheduler, decide: decide
            ).start()
        })
    }

    /// Keeps the first value a run produces and hands it to every later run without running the
    /// work again; failed runs are not kept.
    public func reuse() -> Retryable {
        let body = body
        let cache = ValueCache<Value>()
        return Retryable(site: { attempt, site in
            if let value = cache.value { return Promise(core: PromiseCore(PromiseStateMachine(outcome: .success(value)), site: site)) }
            // Through a branch: the run observes the attempt, so a late cancel of the settled
            // attempt does not reach the step that keeps its value.
            return body(attempt, site).branch().derive(on: .inline, site: site) { outcome in
                if case .success(let value) = outcome { cache.store(value) }
                return .settle(outcome)
            }
        })
    }
}

extension Promise {
    /// Runs `body` and retries it as ``Retryable/retry(attempts:delay:scheduler:if:)`` says; the
    /// returned promise is the single value to hand out.
    public static func retry(
        attempts: Int,
        delay: RetryDelay = .none,
        scheduler: any PromiseScheduler = .system,
        fileID: StaticString = #fileID,
        line: UInt = #line,
        _ body: @escaping @Sendable (_ attempt: Int) -> Promise<Value>
    ) -> Promise<Value> {
        Retryable(body).retry(attempts: attempts, delay: delay, scheduler: scheduler).run(fileID: fileID, line: line)
    }
}

/// The first value a run produced, for ``Retryable/reuse()``.
final class ValueCache<Value: Sendable>: Sendable {
    private let stored = LockedState<Value?>(nil)

    var value: Value? { stored.withLock { $0 } }

    func store(_ value: Value) {
        stored.withLock { if $0 == nil { $0 = value } }
    }
}

/// One retried run: attempts until one succeeds or the decision says stop.
final class RetryDriver<Value: Sendable>: Sendable {
    private let body: @Sendable (Int) -> Promise<Value>
    private let scheduler: any PromiseScheduler
    private let decide: @Sendable (Int, any Error) -> RetryDecision
    private let promise: Promise<Value>
    private let resolver: Resolver<Value>
    private let state = LockedState(Progress())
    /// The most attempts, when known, and where the run was asked for: for failure traces.
    private let attempts: Int?
    private let site: PromiseSite

    /// Where the run is: the attempt running or the timer waiting for the next one.
    private struct Progress: Sendable {
        var current: Promise<Value>?
        var timer: ScheduledAction?
        var stopped = false
        var attempt = 0
    }

    init(body: @escaping @Sendable (Int) -> Promise<Value>, site: PromiseSite, attempts: Int?, scheduler: any PromiseScheduler,
         decide: @escaping @Sendable (Int, any Error) -> RetryDecision) {
        self.attempts = attempts
        self.site = site
        // Every attempt runs with the task-local values bound where the run started (R15).
        self.body = PromiseTaskLocals.carrying(body)
        self.scheduler = scheduler
        self.decide = decide
        let core = PromiseCore<Value>(PromiseStateMachine(), site: site, rare: .keeping(site))
        (promise, resolver) = (Promise(core: core), Resolver(core: core))
    }

    func start() -> Promise<Value> {
        resolver.onCancel { [self] in
            let (running, timer) = state.withLock { state -> (Promise<Value>?, ScheduledAction?) in
                state.stopped = true
                defer { state.current = nil; state.timer = nil }
                return (state.current, state.timer)
            }
            timer?.cancel()
            running?.cancel()
        }
        next()
        return promise
    }

    private func next() {
        let number: Int? = state.withLock { state in
            guard !state.stopped else { return nil }
            state.attempt += 1
            state.timer = nil
            return state.attempt
        }
        guard let number else { return }
        // A branch per attempt: cancelling the run cancels the branch, so the attempt loses this
        // waiter and stops its work unless somebody else waits for it (R7, B7).
        let attemptPromise = body(number).branch()
        promise.core.notePending(.attempt(ObjectIdentifier(attemptPromise.core), number: number, of: attempts))
        state.withLock { $0.current = attemptPromise }
        attemptPromise.observe { [self] outcome in
            switch outcome {
            case .success(let value):
                resolver.fulfill(value)
            case .failure(let error):
                handle(error, after: number, of: attemptPromise)
            }
        }
    }

    private func handle(_ error: any Error, after number: Int, of attempt: Promise<Value>) {
        if state.withLock({ $0.stopped }) { return }
        switch decide(number, error) {
        case .stop:
            guard tracesAreOn else { return resolver.resolve(.failure(error)) }
            resolver.resolve(.failure(error), carryingOn: attempt.core.traceNode, as: PromiseSite(
                fileID: site.file, line: UInt(site.line), operation: .retryAttempt, index: number, count: attempts ?? 0))
        case .retry:
            next()
        case .retryAfter(let wait):
            promise.core.notePending(.backOff(delay: wait, due: scheduler is TimerThread ? .now + wait : nil, nextAttempt: number + 1))
            let scheduled = scheduler.schedule(after: wait) { [self] in next() }
            let cancelled = state.withLock { state -> Bool in
                if state.stopped { return true }
                state.timer = scheduled
                return false
            }
            if cancelled { scheduled.cancel() }
        }
    }
}
