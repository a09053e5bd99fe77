import ActorPromiseExecutors

// Main-actor forms of the closures that start or stop work — a lazy body, a retried attempt, a
// cancel handler — for main-actor code whose work begins with main-actor state. Each takes
// `on: .main`, as the handlers' forms do (see `Promise+MainActor.swift`), and runs its closure as
// a main-context job, entering the main actor there.

extension Promise {
    /// Creates a promise whose `body` runs on the main actor once somebody observes the promise
    /// (R10).
    ///
    /// - Parameters:
    ///   - context: `.main`.
    ///   - tracksInterest: Whether the promise cancels itself once every dependent was cancelled
    ///     (R7).
    ///   - fileID: Where the promise is made, for diagnostics (filled in for you).
    ///   - line: The line of that site (filled in for you).
    ///   - body: Starts the work with the resolver, isolated to the main actor; a thrown error
    ///     rejects the promise.
    /// - Returns: The lazy promise. If it is cancelled before `body` ran on the main actor,
    ///   `body` still runs and its settlement is ignored (R1); stop the work in
    ///   ``Resolver/onCancel(_:)``.
    public static func lazy(
        on context: MainContext,
        tracksInterest: Bool = true,
        fileID: StaticString = #fileID,
        line: UInt = #line,
        _ body: @escaping @MainActor @Sendable (Resolver<Value>) throws -> Void
    ) -> Promise<Value> {
        lazy(tracksInterest: tracksInterest, fileID: fileID, line: line) { resolver in
            context.submitIsolated {
                do { try body(resolver) } catch { resolver.reject(error, cause: .bodyThrew) }
            }
        }
    }

    /// Runs `body` on the main actor, and again as ``Retryable/retry(attempts:delay:scheduler:if:)``
    /// says; the returned promise is the single value to hand out.
    ///
    /// - Parameters:
    ///   - attempts: How many times to try at most.
    ///   - delay: The pause before each retry.
    ///   - scheduler: The source of time for the pauses.
    ///   - context: `.main`.
    ///   - fileID: Where the returned promise is made, for diagnostics (filled in for you).
    ///   - line: The line of that site (filled in for you).
    ///   - body: Starts one attempt, isolated to the main actor.
    /// - Returns: The first attempt's value, or the last attempt's error. Cancelling it stops
    ///   further attempts and the one in flight, as for the nonisolated form.
    public static func retry(
        attempts: Int,
        delay: RetryDelay = .none,
        scheduler: any PromiseScheduler = .system,
        on context: MainContext,
        fileID: StaticString = #fileID,
        line: UInt = #line,
        _ body: @escaping @MainActor @Sendable (_ attempt: Int) -> Promise<Value>
    ) -> Promise<Value> {
        Retryable(on: context, body).retry(attempts: attempts, delay: delay, scheduler: scheduler).run(fileID: fileID, line: line)
    }
}

extension Retryable {
    /// Work whose body starts each run on the main actor; `attempt` counts from 1 within a run of
    /// the innermost retry policy.
    ///
    /// - Parameters:
    ///   - context: `.main`.
    ///   - body: Builds the promise of one run, isolated to the main actor.
    public init(on context: MainContext, _ body: @escaping @MainActor @Sendable (_ attempt: Int) -> Promise<Value>) {
        self.init { attempt in
            Promise<Void>(value: ()).then(on: context) { _ in body(attempt) }
        }
    }
}

extension Resolver {
    /// Registers `handler` to run on the main actor if the promise is cancelled while pending
    /// (R6): the form for work whose handle is main-actor state.
    ///
    /// - Parameters:
    ///   - context: `.main`.
    ///   - handler: Stops the underlying work, isolated to the main actor. It runs as a main-context
    ///     job after the cancellation, not on the cancelling thread; a promise settled or cancelled
    ///     otherwise never runs it.
    public func onCancel(on context: MainContext, _ handler: @escaping @MainActor @Sendable () -> Void) {
        onCancel { context.submitIsolated(handler) }
    }
}

extension MainContext {
    /// Runs `body` as a main-context job, isolated to the main actor.
    fileprivate func submitIsolated(_ body: @escaping @MainActor @Sendable () -> Void) {
        submit(ClosureWorkItem { MainActor.assumeIsolated(body) })
    }
}
