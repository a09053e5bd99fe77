import Executors

extension Promise {
    /// Blocks the calling thread until the promise settles, and returns its value.
    ///
    /// For synchronous code at the edges of a program (a command-line `main`, a test). Never
    /// needed by the library itself, and unavailable from `async` code: use `value` there.
    ///
    /// Blocking a thread that the settlement may need is detected and reported instead of
    /// deadlocking: called on a thread of `WorkerPool`, inside a `SerialQueue`,
    /// `ConcurrentQueue`, `OperationExecutor` or `RunLoopThread` item, or inside an inline
    /// handler, it throws ``PromiseError`` with code ``PromiseError/Code/wouldDeadlock`` at once
    /// (unless the promise is already settled).
    ///
    /// - Parameter timeout: Seconds to wait at most; then throws ``PromiseError/Code/timedOut``.
    /// - Returns: The value.
    /// - Throws: The rejection error, ``PromiseError/Code/wouldDeadlock``, or
    ///   ``PromiseError/Code/timedOut``.
    @available(*, noasync, message: "use `try await promise.value` in async code")
    public func wait(timeout: Double? = nil) throws -> Value {
        if let outcome = core.settledOutcome { return try outcome.get() }
        if let context = currentLibraryContext() {
            throw PromiseError(.wouldDeadlock, site: "wait() called on \(context)")
        }
        let waiter = Waiter<Value>()
        core.send(.register(observer: CallbackObserver.make { waiter.deliver($0) }, child: nil, dependent: false))
        guard let outcome = waiter.take(timeout: timeout) else { throw PromiseError(.timedOut) }
        return try outcome.get()
    }
}

/// Which library context the calling thread is serving, if any.
private func currentLibraryContext() -> String? {
    let thread = ThreadState.current
    if thread.pool != nil { return "a WorkerPool thread" }
    if thread.runningExecutor != nil { return "a serial context's thread (queue, operation or run loop)" }
    if thread.isDraining { return "a thread running inline handlers" }
    return nil
}

/// A one-shot mailbox that a blocked thread waits on.
private final class Waiter<Value: Sendable>: @unchecked Sendable {
    // Safety: `outcome` is guarded by `lock`.
    private let lock = ConditionLock()
    private var outcome: Outcome<Value>?

    func deliver(_ outcome: Outcome<Value>) {
        lock.withLock { self.outcome = outcome }
        lock.broadcast()
    }

    func take(timeout: Double?) -> Outcome<Value>? {
        lock.lock()
        defer { lock.unlock() }
        guard let timeout else {
            while outcome == nil { lock.wait() }
            return outcome
        }
        let deadline = monotonicSeconds() + timeout
        while outcome == nil {
            let remaining = deadline - monotonicSeconds()
            if remaining <= 0 { return nil }
            lock.wait(seconds: remaining)
        }
        return outcome
    }
}
