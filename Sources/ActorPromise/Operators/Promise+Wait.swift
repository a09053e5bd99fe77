import ActorPromiseExecutors

extension Promise {
    /// Blocks the calling thread until the promise settles, and returns its value.
    ///
    /// For synchronous code at the edges of a program (a command-line `main`, a test). Never
    /// needed by the library itself, and unavailable from `async` code: use `value` there.
    ///
    /// A blocking wait never deadlocks (E5):
    /// - **On the main thread, from synchronous code** (a command-line program's top level, a
    ///   callback) it serves the main queue while it waits: main-actor jobs (`MainActor.run`,
    ///   `@MainActor` tasks) and main-context handlers (`then(on: .main)`) run, so a promise that
    ///   needs them completes. Inside a block you posted to `DispatchQueue.main` yourself the main
    ///   queue is busy with that block: main-context handlers still run, main-actor jobs wait
    ///   until it returns.
    /// - **On the main actor, from async code** (a `@MainActor` function called from a task,
    ///   `MainActor.run`) the main actor is busy running the caller and cannot run anything the
    ///   promise may need: it throws ``PromiseError/Code/wouldDeadlock`` at once (unless the
    ///   promise is already settled). Use `try await promise.value` there.
    /// - **On a thread the settlement may need** — a `WorkerPool` thread, inside an item of a
    ///   `SerialQueue`, `ConcurrentQueue`, `OperationExecutor` or `RunLoopThread`, inside a block
    ///   of a serial `DispatchQueue` (or a barrier block of a concurrent one, which is how handlers
    ///   run there by default), inside an operation of an `OperationQueue` whose
    ///   `maxConcurrentOperationCount` is 1, inside a main-context handler, or inside an inline
    ///   handler — it throws ``PromiseError`` with code ``PromiseError/Code/wouldDeadlock`` at
    ///   once (unless the promise is already settled). The error's ``PromiseError/site`` names
    ///   that context, and its description says what to do instead: `await` the value, or pass a
    ///   callback to `whenComplete`.
    /// - **Inside a test runtime's `run`** (`ActorPromiseTesting`) it drives the runtime — its
    ///   jobs and, with `autoAdvance`, its clock — until the promise settles; if nothing more can
    ///   run and the promise is still pending, it throws ``PromiseError/Code/wouldDeadlock``.
    /// - **On a concurrent Foundation queue** — a handler on `DispatchQueue.global()`, on a
    ///   queue's `concurrentContext`, or on an `OperationQueue` that runs several operations at
    ///   once — it blocks, as `DispatchQueue.sync` from such a block does: the queue's other blocks
    ///   run meanwhile, so another thread can settle the promise. The blocked thread is one of
    ///   Dispatch's: work that would settle the promise and is queued on Dispatch's queues — or,
    ///   on Linux, runs in a Swift task, whose cooperative pool draws on the same threads — waits
    ///   until Dispatch adds a thread, which on a busy machine may take long.
    ///
    /// While it waits, the wait counts as a dependent of the promise. A wait that times out stops
    /// waiting: if it was the last dependent, the promise cancels itself and stops its work (B7).
    ///
    /// - Parameter timeout: How long to wait at most; then throws ``PromiseError/Code/timedOut``.
    ///   `nil` waits as long as it takes.
    /// - Returns: The value.
    /// - Throws: The rejection error (``PromiseError/Code/cancelled`` if it was cancelled),
    ///   ``PromiseError/Code/wouldDeadlock``, or ``PromiseError/Code/timedOut``.
    @available(*, noasync, message: "use `try await promise.value` in async code")
    public func wait(timeout: Duration? = nil) throws -> Value {
        if let outcome = takenSettledOutcome { return try outcome.get() }
        if let runtime = ThreadState.withCurrent({ $0.interceptor }) {
            runtime.drive { !isPending }
            if let outcome = takenSettledOutcome { return try outcome.get() }
            throw PromiseError(.wouldDeadlock, site: "wait() inside a test runtime with nothing left to run (its pendingReport() says what is pending)")
        }
        if let context = currentLibraryContext() {
            throw PromiseError(.wouldDeadlock, site: "wait() called from \(context)")
        }
        let onMain = MainContext.isMainThread
        if onMain, isInsideTask() {
            throw PromiseError(.wouldDeadlock, site: "wait() called from main-actor async code (the main actor runs the caller; await the promise instead)")
        }
        let waiter = Waiter<Value>(wakesMain: onMain)
        // The waiter counts as a dependent (R7): while it waits, the work is wanted.
        core.observe(CallbackObserver.make { waiter.deliver($0) })
        let limit = timeout.map { max(0, seconds($0)) }
        if onMain {
            MainContext.shared.serveMainQueue(until: { waiter.isDone }, deadline: monotonicSeconds() + (limit ?? 1e12))
        }
        guard let outcome = waiter.take(timeout: onMain ? 0 : limit) else {
            // The waiter gives up: it no longer wants the value (B7).
            loseInterest(core, cause: tracesAreOn ? .lostInterest(PromiseSite(fileID: "", line: 0, operation: .waitTimeout)) : nil)
            throw PromiseError(.timedOut)
        }
        return try outcome.get()
    }
}

/// Which library context the calling thread is serving, if any. A queue's item runs on a pool
/// thread, so the queue is named first.
private func currentLibraryContext() -> String? {
    let thread = ThreadState.current
    if let context = thread.runningContext { return describeRunningContext(context) }
    if thread.pool != nil { return "a WorkerPool thread" }
    if thread.isDraining { return "a thread running inline handlers" }
    return nil
}

/// A one-shot mailbox that a blocked thread waits on.
private final class Waiter<Value: Sendable>: Sendable {
    private let outcome = LockedState<Outcome<Value>?>(nil)
    /// Whether a main thread runs main-context handlers while it waits, and must be woken.
    private let wakesMain: Bool

    init(wakesMain: Bool) { self.wakesMain = wakesMain }

    var isDone: Bool { outcome.withLock { $0 != nil } }

    func deliver(_ outcome: Outcome<Value>) {
        self.outcome.withLockWakingWaiters { $0 = outcome }
        if wakesMain { MainContext.shared.wakeMainThread() }
    }

    func take(timeout: Double?) -> Outcome<Value>? {
        guard outcome.wait(timeout: timeout, until: { $0 != nil }) else { return nil }
        return outcome.withLock { $0 }
    }
}
