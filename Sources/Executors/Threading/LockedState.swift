import Synchronization

/// State that one thread at a time may touch: a value and the lock that guards it, in one object.
///
/// The library's lock-guarded types keep their mutable fields in one of these instead of pairing a
/// lock with unchecked `var`s themselves, so that those types are plainly `Sendable` and the
/// compiler checks them: everything else they hold is immutable and `Sendable`.
///
/// Safety (`@unchecked Sendable`): `state` is read and written only inside the `withLock` methods
/// and ``wait(timeout:until:)``, with `lock` held, so no two threads touch it at once; `State` is
/// `Sendable`, so what a closure takes out of it may cross threads. The runtime's exclusivity
/// check is off because the lock already makes every access exclusive.
@usableFromInline
package final class LockedState<State: Sendable>: @unchecked Sendable {
    /// Guards `state`.
    @usableFromInline let lock: ConditionLock
    @usableFromInline @exclusivity(unchecked) var state: State

    /// Creates the state and its lock, with the condition variable that
    /// ``withLock(waiting:)`` sleeps on and ``withLockWakingWaiters(_:)`` wakes.
    @inlinable
    package init(_ state: State) {
        self.state = state
        lock = ConditionLock()
    }

    /// Runs `body` with the state, the lock held.
    ///
    /// - Parameter body: Reads or changes the state; it must not block or call back into code
    ///   that takes this lock.
    /// - Returns: What `body` returns.
    @inlinable @inline(__always)
    package func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&state)
    }

    /// Runs `body` with the state, the lock held, without the interleaving checker's scheduling
    /// points (see ``ConditionLock/withLockUnscheduled(_:)``): for bookkeeping no scenario checks.
    ///
    /// - Parameter body: Reads or changes the state; it must reach no scheduling point.
    /// - Returns: What `body` returns.
    package func withLockUnscheduled<Result>(_ body: (inout State) -> Result) -> Result {
        lock.withLockUnscheduled { body(&state) }
    }

    /// What ``withLock(waiting:)``'s step decided: finish with a result, or sleep until woken
    /// (at most `seconds`, if given) and look again.
    package enum Step<Result> {
        case done(Result)
        case wait(seconds: Double?)
    }

    /// Runs `step` with the state, the lock held, until it returns `.done`; between tries the
    /// thread sleeps, the lock released, until ``withLockWakingWaiters(_:)`` wakes it or the
    /// step's time is up. The blocking loops of the executors (a run-loop thread waiting for work,
    /// the timer thread waiting for its next deadline, a blocking `wait()`) are written with it.
    ///
    /// - Returns: The result of the `.done` step.
    @inline(__always)
    package func withLock<Result>(waiting step: (inout State) throws -> Step<Result>) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        while true {
            switch try step(&state) {
            case .done(let result): return result
            case .wait(let seconds?): lock.wait(seconds: seconds)
            case .wait(nil): lock.wait()
            }
        }
    }

    /// Blocks the calling thread until `condition` holds for the state, or `timeout` seconds have
    /// passed (`nil`: no limit). Woken by ``withLockWakingWaiters(_:)``.
    ///
    /// - Returns: Whether `condition` held when the wait ended.
    package func wait(timeout: Double?, until condition: (State) -> Bool) -> Bool {
        let deadline = timeout.map { monotonicSeconds() + $0 }
        return withLock(waiting: { state in
            if condition(state) { return .done(true) }
            guard let deadline else { return .wait(seconds: nil) }
            let remaining = deadline - monotonicSeconds()
            return remaining <= 0 ? .done(false) : .wait(seconds: remaining)
        })
    }

    /// ``withLock(_:)``, then wakes every thread blocked in ``wait(timeout:until:)``.
    package func withLockWakingWaiters<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        let result = try withLock(body)
        lock.broadcast()
        return result
    }
}

/// A mutex with a condition variable, built on pthreads.
///
/// The run-loop threads, the timer thread and blocking waits sleep on it. pthreads are used rather
/// than `Synchronization.Mutex` because ThreadSanitizer models them exactly.
///
/// Safety (`@unchecked Sendable`): the pthread objects live at stable heap addresses; they are
/// created in `init` and destroyed in `deinit`, and every other access goes through the pthread
/// functions, which are thread-safe by contract.
@usableFromInline
package final class ConditionLock: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>

    /// Creates the lock and its condition variable.
    @usableFromInline
    package init() {
        mutex = .allocate(capacity: 1)
        condition = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    @usableFromInline package func lock() {
        schedulingPointBeforeLock(self)
        pthread_mutex_lock(mutex)
    }

    @usableFromInline package func unlock() {
        pthread_mutex_unlock(mutex)
        schedulingPointAfterUnlock(self)
    }

    /// Runs `body` with the lock held, without the interleaving checker's scheduling points
    /// around it: for short sections that decide nothing the checker's scenarios check (the
    /// failure-trace fields of a promise), whose points would only multiply its schedules. `body`
    /// must reach no scheduling point itself.
    package func withLockUnscheduled<Result>(_ body: () -> Result) -> Result {
        pthread_mutex_lock(mutex)
        #if ACTORPROMISE_INTERLEAVINGS
        MemoryModel.shared.acquire(ObjectIdentifier(self))
        defer { MemoryModel.shared.release(ObjectIdentifier(self)) }
        #endif
        defer { pthread_mutex_unlock(mutex) }
        return body()
    }

    /// Waits for a ``broadcast()``; the lock must be held and is held again on return.
    package func wait() {
        #if ACTORPROMISE_INTERLEAVINGS
        if isCheckedThread { return checkedWait(timed: false) }
        #endif
        pthread_cond_wait(condition, mutex)
    }

    /// Waits for a ``broadcast()`` or until `seconds` have passed; the lock must be held.
    package func wait(seconds: Double) {
        #if ACTORPROMISE_INTERLEAVINGS
        if isCheckedThread { return checkedWait(timed: true) }
        #endif
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let total = Double(now.tv_sec) + Double(now.tv_nsec) / 1e9 + max(0, seconds)
        var deadline = timespec()
        deadline.tv_sec = Int(total)
        deadline.tv_nsec = Int((total - Double(Int(total))) * 1e9)
        pthread_cond_timedwait(condition, mutex, &deadline)
    }

    /// Wakes every waiting thread.
    package func broadcast() {
        #if ACTORPROMISE_INTERLEAVINGS
        schedulingPoint("condition.broadcast")
        broadcasts.add(1, ordering: .sequentiallyConsistent)
        #endif
        pthread_cond_broadcast(condition)
    }

    #if ACTORPROMISE_INTERLEAVINGS
    /// How many broadcasts there were: a checked thread's wait ends at the next one.
    private let broadcasts = Atomic<Int>(0)

    /// A condition wait of a thread the checker runs: the lock is let go, the checker runs other
    /// threads until a broadcast comes (a timed wait also ends when no other thread can run: its
    /// time is up), and the lock is taken back — each a scheduling point.
    private func checkedWait(timed: Bool) {
        let seen = broadcasts.load(ordering: .sequentiallyConsistent)
        unlock()
        _ = blockAtSchedulingPoint(timed: timed) { [self] in broadcasts.load(ordering: .sequentiallyConsistent) != seen }
        lock()
    }
    #endif

    /// Runs `body` with the lock held.
    @inline(__always)
    package func withLock<R>(_ body: () throws -> R) rethrows -> R {
        lock()
        defer { unlock() }
        return try body()
    }
}

/// An iterator that one thread at a time advances: the `next()` of a sequence handed over with
/// `sending`, behind a lock, so that a batch can pull its next element from whichever thread
/// freed a slot.
///
/// Safety (`@unchecked Sendable`): `base` was handed over with `sending` (nothing else refers to
/// its state) and is touched only in ``next(_:)``, with `lock` held, so no two threads touch it at
/// once; what leaves it is a `Sendable` element. The runtime's exclusivity check is off because
/// the lock already makes every access exclusive.
///
/// The base's type is erased (one dynamic call per element), so that code holding the iterator
/// is generic over the element only.
package final class LockedIterator<Element: Sendable>: @unchecked Sendable {
    private let lock = ConditionLock()
    @exclusivity(unchecked) private var base: any IteratorProtocol<Element>
    @exclusivity(unchecked) private var isExhausted = false

    package init(_ base: sending some IteratorProtocol<Element>) {
        self.base = base
    }

    /// The next element, or `nil` once the sequence has ended (and from then on, without calling
    /// the base again). `then` runs with the lock still held, with the element, so that elements
    /// are numbered in the order they were pulled.
    package func next<Result>(_ then: (Element) -> Result) -> Result? {
        lock.lock()
        defer { lock.unlock() }
        guard !isExhausted else { return nil }
        guard let element = base.next() else {
            isExhausted = true
            return nil
        }
        return then(element)
    }
}

/// A process-wide reference that changes rarely and is read often, without a lock: every object
/// published is retained once and never released (immortal), so a reader uses the one it loaded
/// without retaining it, however late it reads. For registries that change a handful of times in
/// a process's life (the task-local keys to propagate): each published object stays allocated.
@usableFromInline
package struct ImmortalCell<Object: AnyObject & Sendable>: ~Copyable, Sendable {
    // Safety of the unmanaged reference: `publish` retains each object once and nothing releases
    // it, so any object a reader loads (acquiring, paired with the releasing store) is alive.
    @usableFromInline let slot = Atomic<Unmanaged<Object>?>(nil)

    /// An empty cell.
    @inlinable package init() {}

    /// Calls `body` with the object published last, without retaining it; `nil` if none was.
    /// One atomic load when the cell is empty.
    @inlinable
    package func withObject<Result>(_ body: (Object) -> Result) -> Result? {
        schedulingPoint("ImmortalCell.load")
        guard let object = slot.load(ordering: .acquiring) else { return nil }
        return object._withUnsafeGuaranteedRef(body)
    }

    /// Publishes `object`, which is never released. Writers take their own lock.
    package func publish(_ object: Object) {
        schedulingPoint("ImmortalCell.publish")
        slot.store(.passRetained(object), ordering: .releasing)
    }
}
