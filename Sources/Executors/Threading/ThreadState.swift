/// Per-thread bookkeeping shared by the executors and the promise core.
///
/// One instance per thread, created on first use and released when the thread exits. It holds:
/// - the inline drain queue, which keeps synchronous handler chains flat (no stack growth);
/// - the worker pool this thread belongs to, and its "next" slot for chain locality;
/// - the promise state actor currently isolated on this thread (for `checkIsolated`);
/// - a graveyard that releases long parent chains iteratively instead of recursively;
/// - the backlog of the cancel walk running on this thread, which keeps cancels that travel
///   through chains of adoptions flat;
/// - the test runtime driving this thread, if any, which takes the jobs the thread submits;
/// - the failure a handler running here was handed, while failure traces are on.
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
    /// Identity of the state actor whose gate this thread entered last and still holds (debug
    /// builds), and those of the gates it holds besides, innermost last: a collapse holds several
    /// at once; every other operation, one.
    @exclusivity(unchecked) package var innermostGate: UnsafeRawPointer?
    @exclusivity(unchecked) package var outerGates: [UnsafeRawPointer] = []
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
    /// The failure the handler running on this thread was handed, with its trace, while failure
    /// traces are on: the promise module's object, opaque here.
    @exclusivity(unchecked) package var handledFailure: AnyObject?
    /// The last failure an `await` on this thread threw, with its trace, while failure traces are
    /// on: the promise module's object, opaque here. The `catch` that follows the `await` runs on
    /// this thread before anything else does. Written on failures only: the runtime's exclusivity
    /// check stays on.
    package var awaitedFailure: AnyObject?
    /// The task-local values this thread captured last for a handler (R15), kept weakly so that
    /// registrations that follow with the same values share them: the promise module's object, of
    /// its one capture type, opaque here. The weak field is read and written by accessors compiled
    /// here: read directly from the promise module, it paid the runtime's dynamic exclusivity check,
    /// which its attribute turns off.
    @inlinable
    package func lastCapturedTaskLocals<Capture: AnyObject>(as _: Capture.Type) -> Capture? {
        // Safety of the downcast: the promise module is the one writer (through
        // `setLastCapturedTaskLocals`), and it stores its capture type only, which it reads back.
        // Inlined, so that the cast costs nothing; the weak load stays in the getter below.
        guard let capture = lastCapturedObject else { return nil }
        return unsafeDowncast(capture, to: Capture.self)
    }
    /// The weak load, compiled here (see above).
    @usableFromInline package var lastCapturedObject: AnyObject? { lastCapture }
    /// Remembers `capture` (weakly) as the thread's last capture of task-local values.
    package func setLastCapturedTaskLocals(_ capture: AnyObject) { lastCapture = capture }
    @exclusivity(unchecked) private weak var lastCapture: AnyObject?

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

/// Records that this thread now holds the gate of the state actor `identity` (debug builds).
@usableFromInline
package func enterIsolation(_ identity: UnsafeRawPointer) {
    let thread = ThreadState.current
    if let held = thread.innermostGate { thread.outerGates.append(held) }
    thread.innermostGate = identity
}

/// Records that this thread has left the gate of the state actor `identity`, the innermost one
/// it held: gates are left in the reverse order of their entry, as nested scopes end.
@usableFromInline
package func leaveIsolation(_ identity: UnsafeRawPointer) {
    let thread = ThreadState.current
    assert(thread.innermostGate == identity, "a gate left out of order")
    thread.innermostGate = thread.outerGates.popLast()
}

/// Whether this thread holds the gate of the state actor `identity`.
package func isIsolated(to identity: UnsafeRawPointer) -> Bool {
    let thread = ThreadState.current
    return thread.innermostGate == identity || thread.outerGates.contains(identity)
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

extension ThreadState {
    /// Runs `body` with `executor` recorded as the serial context running on this thread.
    ///
    /// The identity is recorded unretained, as a raw pointer: `executor` is an argument of this
    /// call and so alive until `body` returns, and the record is removed before that. A reader
    /// on this thread (``runningContext``, from inside `body`) may therefore turn it back into
    /// the object.
    @inline(__always)
    package func running<R>(_ executor: AnyObject, _ body: () -> R) -> R {
        let outer = runningExecutor
        runningExecutor = UnsafeRawPointer(Unmanaged.passUnretained(executor).toOpaque())
        defer { runningExecutor = outer }
        return body()
    }

    /// Whether `executor` is the serial context running a job on this thread.
    @inline(__always)
    package func isRunning(_ executor: AnyObject) -> Bool {
        runningExecutor == UnsafeRawPointer(Unmanaged.passUnretained(executor).toOpaque())
    }

    /// The serial context running a job on this thread, if any, for error messages. Ask it only
    /// on this thread: the ``running(_:_:)`` call that recorded it keeps it alive meanwhile.
    package var runningContext: AnyObject? {
        runningExecutor.map { Unmanaged<AnyObject>.fromOpaque($0).takeUnretainedValue() }
    }
}

// MARK: Starting a library thread

/// Starts a detached thread running `body`.
///
/// `body` runs with a task-local value of the library's own bound for the thread's whole life.
/// Code on a thread without a task keeps its task-local values in a per-thread store, which the
/// Swift runtime creates at the first binding and frees again when the last one ends: a handler
/// that binds its captured values (R15) would pay for that store each time it runs. With this
/// value bound the store lives as long as the thread, so a binding costs one entry.
package func startThread(named name: String, _ body: @escaping @Sendable () -> Void) {
    final class Box: Sendable {
        let body: @Sendable () -> Void
        let name: String
        init(_ body: @escaping @Sendable () -> Void, name: String) { self.body = body; self.name = name }
    }
    let box = Unmanaged.passRetained(Box(body, name: name)).toOpaque()
    var attributes = pthread_attr_t()
    pthread_attr_init(&attributes)
    pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
    pthread_attr_setstacksize(&attributes, 8 << 20)
    #if canImport(Darwin)
    var thread: pthread_t? = nil
    #else
    var thread = pthread_t()
    #endif
    let status = pthread_create(&thread, &attributes, { raw in
        #if canImport(Darwin)
        let box = Unmanaged<Box>.fromOpaque(raw).takeRetainedValue()
        pthread_setname_np(String(box.name.prefix(63)))
        #else
        let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
        nameThisThread(box.name)
        #endif
        ThreadAnchor.$bound.withValue(true) { box.body() }
        return nil
    }, box)
    pthread_attr_destroy(&attributes)
    precondition(status == 0, "pthread_create failed: \(status)")
}

/// The task-local value that keeps a library thread's task-local store alive (see `startThread`).
enum ThreadAnchor {
    @TaskLocal static var bound = false
}

#if !canImport(Darwin)
/// Names the calling thread for `top`, debuggers and /proc: Linux keeps 15 bytes of it, so a longer
/// name of the library's own (`ActorPromise.global.3`) drops its prefix (`global.3`). Glibc's
/// `pthread_setname_np` is not visible to Swift, so the name is written where the kernel keeps it.
private func nameThisThread(_ name: String) {
    let file = open("/proc/thread-self/comm", O_WRONLY)
    guard file >= 0 else { return }
    let prefix = "ActorPromise."
    let short = name.utf8.count > 15 && name.hasPrefix(prefix) ? name.dropFirst(prefix.count) : Substring(name)
    let bytes = Array(short.utf8.prefix(15))
    _ = bytes.withUnsafeBytes { write(file, $0.baseAddress, $0.count) }
    close(file)
}
#endif

/// Whether the calling code runs inside a task (async code, or synchronous code it called).
package func isInsideTask() -> Bool {
    withUnsafeCurrentTask { $0 != nil }
}
