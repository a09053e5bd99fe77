/// A value that will be available later, or the error that prevented it.
///
/// A promise is pending, then settles once: fulfilled with a value or rejected with an error
/// (cancellation is a rejection with ``PromiseError/Code/cancelled``). Its state lives in an actor;
/// `Promise` itself is a small `Sendable` handle, cheap to copy and safe to share across threads.
///
/// Derive promises with `then(on:_:)` and the other operators. Every operator
/// returns at once, from synchronous code, and its handler runs later on an `ExecutionContext`
/// (`WorkerPool.global` unless you pass `on:`). Handlers registered with the same serial
/// context run in registration order.
///
/// ```swift
/// let (promise, resolver) = Promise<Int>.pending()
/// promise
///     .then { $0 * 2 }
///     .catch { error in print("failed:", error) }
/// resolver.fulfill(21)
/// ```
public struct Promise<Value: Sendable>: Sendable {
    @usableFromInline let core: PromiseCore<Value>

    @inlinable init(core: PromiseCore<Value>) { self.core = core }

    /// Creates a pending promise and the resolver that settles it.
    ///
    /// - Parameters:
    ///   - tracksInterest: When `true` (the default), the promise cancels itself once every
    ///     dependent that waited for it — derived promises, awaiters, combinators, `timeout` —
    ///     has stopped waiting: "nobody wants the value any more" (R7, B7). Its
    ///     ``Resolver/onCancel(_:)`` then stops the underlying work. Promises derived from it track
    ///     interest too. Pass `false` for a promise kept to hand out later, after all of today's
    ///     waiters may have gone: it and its derived promises are then cancelled only by
    ///     `cancel()`.
    ///   - fileID: Where the promise is created, for diagnostics in debug builds (filled in for you).
    ///   - line: The line of that site (filled in for you).
    /// - Returns: The promise, and the resolver to hand to the work. Releasing the resolver while
    ///   the promise is pending rejects it with ``PromiseError/Code/abandoned``.
    @inlinable @inline(__always)
    public static func pending(
        tracksInterest: Bool = true,
        fileID: StaticString = #fileID,
        line: UInt = #line
    ) -> (promise: Promise<Value>, resolver: Resolver<Value>) {
        let site = PromiseSite(fileID: fileID, line: line, operation: .promise)
        let core = PromiseCore<Value>(PromiseStateMachine(), tracksInterest: tracksInterest, site: site)
        core.registerInReleaseIfTracking(site: site)
        return (Promise(core: core), Resolver(core: core))
    }

    /// Creates a promise and runs `body` at once with its resolver.
    ///
    /// - Parameters:
    ///   - tracksInterest: See ``pending(tracksInterest:fileID:line:)``.
    ///   - fileID: Where the promise is created, for diagnostics in debug builds (filled in for you).
    ///   - line: The line of that site (filled in for you).
    ///   - body: Starts the work and keeps the resolver until the work is done. A thrown error
    ///     rejects the promise (unless the body settled it first).
    @inlinable
    public init(
        tracksInterest: Bool = true,
        fileID: StaticString = #fileID,
        line: UInt = #line,
        _ body: (Resolver<Value>) throws -> Void
    ) {
        // Inlinable, so that it is specialized where it is called; under a test runtime only,
        // the body runs through `promiseMadeUnderTestRuntime`.
        if creationIsWatched, let made = promiseMadeWhileWatched(
            tracksInterest: tracksInterest, fileID: fileID, line: line, body) {
            self = made
            return
        }
        let (promise, resolver) = Promise.pending(tracksInterest: tracksInterest, fileID: fileID, line: line)
        self = promise
        do {
            try body(resolver)
        } catch {
            resolver.reject(error, cause: .bodyThrew)
        }
    }

    /// Creates a promise whose `body` runs only when the promise is first observed — by an
    /// operator, an awaiter or a callback — and at most once (R10).
    ///
    /// The body runs on the thread that registers the first observer. A lazy promise that is
    /// cancelled before anyone observes it never runs its body. A thrown error rejects it.
    ///
    /// - Parameters:
    ///   - tracksInterest: See ``pending(tracksInterest:fileID:line:)``.
    ///   - fileID: Where the promise is created, for diagnostics (filled in for you).
    ///   - line: The line of that site (filled in for you).
    ///   - body: Starts the work with the resolver, on first observation.
    /// - Returns: The lazy promise.
    @inlinable
    public static func lazy(
        tracksInterest: Bool = true,
        fileID: StaticString = #fileID,
        line: UInt = #line,
        _ body: @escaping @Sendable (Resolver<Value>) throws -> Void
    ) -> Promise<Value> {
        let site = PromiseSite(fileID: fileID, line: line, operation: .lazy)
        let core = PromiseCore<Value>(
            PromiseStateMachine(hook: .lazy), tracksInterest: tracksInterest,
            link: Link(lazyBody: ErasedClosure(LazyBody(PromiseTaskLocals.carrying(body))), runner: { object in
                Link.promise(object, as: Value.self).runLazyBody()
            }), site: site)
        core.registerInReleaseIfTracking(site: site)
        return Promise(core: core)
    }

    // Disfavored: a trailing closure can bind to a parameter of generic type, and without this
    // `Promise { try await work() }` picks this initializer (with `Value` a function type, which is
    // not `Sendable`) over the async-closure one, and so would `Promise { compute() }` but for the
    // synchronous-body initializer below.
    /// Creates a promise that is already fulfilled with `value`.
    ///
    /// - Parameters:
    ///   - value: The value.
    ///   - fileID: Where the promise is created, for diagnostics (filled in for you).
    ///   - line: The line of that site (filled in for you).
    @inlinable @_disfavoredOverload
    public init(value: Value, fileID: StaticString = #fileID, line: UInt = #line) {
        core = PromiseCore(PromiseStateMachine(outcome: .success(value)), site: PromiseSite(fileID: fileID, line: line, operation: .promise))
    }

    /// Creates a promise settled with what `body` returns or throws, running it at once.
    ///
    /// `Promise { let x = compute(); return x + 1 }` is fulfilled with the result before the
    /// initializer returns; an error `body` throws rejects it. (A body that awaits, `Promise { try
    /// await work() }`, runs in a task instead; a body that takes a resolver, `Promise { resolver
    /// in … }`, settles it later.)
    ///
    /// - Parameters:
    ///   - fileID: Where the promise is created, for diagnostics (filled in for you).
    ///   - line: The line of that site (filled in for you).
    ///   - body: Computes the value, in the caller's isolation, on the caller's thread.
    @inlinable
    public init(fileID: StaticString = #fileID, line: UInt = #line, _ body: () throws -> Value) {
        let outcome: Outcome<Value>
        do { outcome = .success(try body()) } catch { outcome = .failure(error) }
        let site = PromiseSite(fileID: fileID, line: line, operation: .promise)
        core = PromiseCore(PromiseStateMachine(outcome: outcome), site: site)
        if case .failure = outcome, tracesAreOn { core.traceMadeRejected(at: site, cause: .bodyThrew) }
    }

    /// Creates a promise that is already rejected with `error`. Released without anyone taking
    /// the rejection, it is reported (R14, ``PromiseDiagnostics/unhandledRejectionHandler``).
    ///
    /// - Parameters:
    ///   - error: The error.
    ///   - fileID: Where the promise is created, for diagnostics (filled in for you).
    ///   - line: The line of that site (filled in for you).
    @inlinable
    public init(error: any Error, fileID: StaticString = #fileID, line: UInt = #line) {
        let site = PromiseSite(fileID: fileID, line: line, operation: .promise)
        core = PromiseCore(PromiseStateMachine(outcome: .failure(error)), site: site)
        if tracesAreOn { core.traceMadeRejected(at: site, cause: .madeRejected) }
    }

    /// Creates a promise that is already settled with `result`.
    ///
    /// - Parameters:
    ///   - result: The outcome.
    ///   - fileID: Where the promise is created, for diagnostics (filled in for you).
    ///   - line: The line of that site (filled in for you).
    @inlinable
    public init(result: Result<Value, some Error>, fileID: StaticString = #fileID, line: UInt = #line) {
        let site = PromiseSite(fileID: fileID, line: line, operation: .promise)
        core = PromiseCore(PromiseStateMachine(outcome: result.mapError { $0 as any Error }), site: site)
        if case .failure = result, tracesAreOn { core.traceMadeRejected(at: site, cause: .madeRejected) }
    }

    // MARK: State snapshots

    /// Whether the promise is still pending. A snapshot: it may change right after you read it.
    public var isPending: Bool { core.isSettled == false }

    /// Whether the promise has been fulfilled (a snapshot).
    public var isFulfilled: Bool { if case .success = core.settledOutcome { true } else { false } }

    /// Whether the promise has been rejected, cancellation included (a snapshot).
    public var isRejected: Bool { if case .failure = core.settledOutcome { true } else { false } }

    /// Whether this promise is rejected with a cancellation error (a snapshot): it was cancelled
    /// while pending, directly or from an ancestor, or it follows a promise that was.
    ///
    /// A promise that had already settled keeps its outcome when cancelled (R1), so a fulfilled
    /// promise reads `false` here even after `cancel()` — which still reaches its children.
    public var isCancelled: Bool { if case .failure(let error)? = core.settledOutcome { error.isCancellation } else { false } }

    /// The outcome, or `nil` while pending (a snapshot).
    public var result: Result<Value, any Error>? { core.settledOutcome }
}

extension Promise where Value == Void {
    /// Creates a promise that is already fulfilled with `()`.
    ///
    /// - Parameters:
    ///   - fileID: Where the promise is created, for diagnostics in debug builds (filled in for you).
    ///   - line: The line of that site (filled in for you).
    public init(fileID: StaticString = #fileID, line: UInt = #line) { self.init(value: (), fileID: fileID, line: line) }
}

extension Promise: Hashable {
    /// Two handles are equal when they refer to the same promise.
    public static func == (lhs: Promise, rhs: Promise) -> Bool { lhs.core === rhs.core }

    /// Hashes the identity of the promise.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(core)) }
}

extension Promise {
    /// Creates the child state of a derived promise with `link`, registers it as an observer and
    /// a dependent, and returns the child. The operator builds the link in the argument, and
    /// captures the task-local values there (R15), before the child exists; the link's context
    /// moves into the child without a retain (a closure building the link would capture the
    /// context and copy it: a retain and a release per promise). The child tracks interest as this
    /// promise does unless `tracksInterest` says otherwise (`shared()`).
    ///
    /// `rare` is the side object that keeps the site in a release build with failure traces on,
    /// which the operator's capture for its link brought (``PromiseTaskLocals/capture(for:)``).
    @inlinable @inline(__always)
    func derive<Out: Sendable>(
        tracksInterest: Bool? = nil, observesCancellation: Bool = false, site: PromiseSite = PromiseSite(),
        rare: RareHandoff = .none, link: consuming sending Link
    ) -> Promise<Out> {
        Promise<Out>(core: core.derive(
            tracksInterest: tracksInterest, observesCancellation: observesCancellation, site: site, rare: rare, link: link))
    }

    /// Derives a promise with an outcome link (``Link/outcome(context:taskLocals:body:)``).
    @inlinable
    func derive<Out: Sendable>(
        on context: consuming any ExecutionContext,
        tracksInterest: Bool? = nil,
        site: PromiseSite = PromiseSite(),
        _ body: @escaping @Sendable (Outcome<Value>) -> LinkStep<Out>
    ) -> Promise<Out> {
        let captured = PromiseTaskLocals.capture(for: site)
        let rare = RareHandoff.of(captured)
        return derive(
            tracksInterest: tracksInterest, observesCancellation: true, site: site, rare: rare,
            link: .outcome(context: context, taskLocals: consume captured, body: body))
    }
}

extension Promise: CustomDebugStringConvertible {
    /// The promise's state, value type, creation site, and the observers and children waiting on
    /// it: `Promise<Int> pending, made at Loader.swift:42, 2 observers`. The site is recorded in
    /// debug builds.
    public var debugDescription: String { core.describe(as: "Promise") }
}
