/// Per-thread bookkeeping shared by the executors and the promise core.
///
/// One instance per thread, created on first use and released when the thread exits. It holds:
/// - the inline drain queue, which keeps synchronous handler chains flat (no stack growth);
/// - the worker pool this thread belongs to, and its "next" slot for chain locality;
/// - the promise state actor currently isolated on this thread (for `checkIsolated`);
/// - a graveyard that releases long parent chains iteratively instead of recursively;
/// - the backlog of the cancel walk running on this thread, which keeps cancels that travel
///   through chains of adoptions flat;
/// - the test runtime driving this thread, if any, which takes the jobs the thread submits.
///
/// It is only ever touched by its own thread, so it needs no lock and no dynamic exclusivity
/// checks (each access is short and never overlaps another); it is not `Sendable`.
package final class ThreadState {
    /// Items waiting for the inline drain loop running on this thread.
    @exclusivity(unchecked) package var inlineQueue = WorkQueue()
    /// Whether an inline drain loop is running on this thread.
    @exclusivity(unchecked) package var isDraining = false
    /// The pool whose worker this thread is, if any: its identity only, which is all the
    /// questions asked of it need ("is this thread one of that pool's?"), and which takes no
    /// reference-counting traffic to compare on the path every link takes.
    @exclusivity(unchecked) package var pool: ObjectIdentifier?
    /// A continuation submitted by the running job to this thread's own pool.
    @exclusivity(unchecked) package var nextSlot: (any Runnable)?
    /// Identity of the state actor whose gate this thread holds, if any.
    @exclusivity(unchecked) package var isolation: UnsafeRawPointer?
    /// Identity of the serial executor running a job on this thread, if any.
    @exclusivity(unchecked) package var runningExecutor: UnsafeRawPointer?
    @exclusivity(unchecked) private var graveyard: [AnyObject] = []
    /// Whether a cancel walk is running on this thread.
    @exclusivity(unchecked) package var isWalkingCancels = false
    /// Promises a running cancel walk found it must cancel next: it cancels them once its own
    /// branch is done, instead of starting a walk inside its walk.
    @exclusivity(unchecked) package var cancelBacklog: [AnyObject] = []
    @exclusivity(unchecked) private var isBurying = false
    /// The test runtime that takes the jobs and timers this thread submits, while it drives a
    /// test here (see ``JobInterceptor``).
    @exclusivity(unchecked) package var interceptor: (any JobInterceptor)?
    /// The task-local values this thread captured last for a handler (R15), kept weakly so that
    /// registrations that follow with the same values share them: the promise module's, opaque here.
    @exclusivity(unchecked) package weak var lastCapturedTaskLocals: AnyObject?

    private init() {}

    /// The state of the calling thread (retained; hot paths use ``withCurrent(_:)``).
    @inline(__always)
    package static var current: ThreadState { withCurrent { $0 } }

    /// Calls `body` with the state of the calling thread, without retaining it: the thread's
    /// key holds the state until the thread exits, which cannot happen during `body`. The
    /// paths every handler takes use this (a retain and a release each, otherwise).
    @inline(__always)
    package static func withCurrent<Result>(_ body: (ThreadState) -> Result) -> Result {
        if let raw = pthread_getspecific(threadStateKey) {
            return Unmanaged<ThreadState>.fromOpaque(raw)._withUnsafeGuaranteedRef(body)
        }
        return body(makeCurrent())
    }

    @inline(never)
    private static func makeCurrent() -> ThreadState {
        let state = ThreadState()
        pthread_setspecific(threadStateKey, Unmanaged.passRetained(state).toOpaque())
        return state
    }

    /// Runs `item` now if no inline drain loop is active on this thread, else queues it behind
    /// the running one. Either way the stack does not grow with chain length.
    @inline(__always)
    package func runInline(_ item: any Runnable) {
        if isDraining {
            inlineQueue.append(item)
        } else {
            batchingInline { item.run() }
        }
    }

    /// Runs `body` with a drain loop active: work it submits inline runs after it returns.
    @inline(__always)
    package func batchingInline(_ body: () -> Void) {
        if isDraining {
            body()
            return
        }
        isDraining = true
        body()
        while let next = inlineQueue.popFirst() { next.run() }
        isDraining = false
    }

    /// Releases `object`, and whatever its deinitializer hands back here, in a loop, so that
    /// dropping a chain of a million objects does not recurse a million deep.
    ///
    /// Call it from a `deinit` with the slot holding the next object of the chain; the slot is
    /// emptied, so the caller holds no reference when it returns.
    package func bury(_ slot: inout AnyObject?) {
        guard slot != nil else { return }
        // Move the reference straight into the graveyard: no local binding may outlive the loop.
        graveyard.append(slot.take().unsafelyUnwrapped)
        if isBurying { return }
        isBurying = true
        while let next = graveyard.popLast() { _ = next }
        isBurying = false
    }
}

/// Runs `body` with an inline drain loop active on this thread: inline work it submits runs after
/// it returns, in order, in constant stack.
@usableFromInline
package func withInlineBatch(_ body: () -> Void) {
    ThreadState.withCurrent { $0.batchingInline(body) }
}

/// Records that this thread now holds the gate of the state actor `identity`; returns the
/// previous record, to hand back to ``leaveIsolation(restoring:)``.
@usableFromInline
package func enterIsolation(_ identity: UnsafeRawPointer) -> UnsafeRawPointer? {
    let thread = ThreadState.current
    let outer = thread.isolation
    thread.isolation = identity
    return outer
}

/// Restores the record replaced by ``enterIsolation(_:)``.
@usableFromInline
package func leaveIsolation(restoring outer: UnsafeRawPointer?) {
    ThreadState.current.isolation = outer
}

/// Whether this thread holds the gate of the state actor `identity`.
package func isIsolated(to identity: UnsafeRawPointer) -> Bool {
    ThreadState.current.isolation == identity
}

private let threadStateKey: pthread_key_t = {
    var key = pthread_key_t()
    #if canImport(Darwin)
    let status = pthread_key_create(&key) { raw in
        Unmanaged<ThreadState>.fromOpaque(raw).release()
    }
    #else
    let status = pthread_key_create(&key) { raw in
        guard let raw else { return }
        Unmanaged<ThreadState>.fromOpaque(raw).release()
    }
    #endif
    precondition(status == 0, "pthread_key_create failed: \(status)")
    return key
}()
