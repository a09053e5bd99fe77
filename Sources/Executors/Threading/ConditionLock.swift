/// A mutex with a condition variable, built on pthreads.
///
/// The worker pool and the run-loop threads park idle threads on it. pthreads are used rather
/// than `Synchronization.Mutex` because ThreadSanitizer models them exactly.
///
/// Safety (`@unchecked Sendable`): the pthread objects live at stable heap addresses; they are
/// created in `init` and destroyed in `deinit`, and every other access goes through the pthread
/// functions, which are thread-safe by contract.
@usableFromInline
package final class ConditionLock: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let conditions: UnsafeMutablePointer<pthread_cond_t>
    private let conditionCount: Int

    /// Creates the lock with `conditions` condition variables (one unless a caller needs to wake
    /// one particular waiter: the worker pool has one per thread).
    @usableFromInline
    package init(conditions: Int = 1) {
        conditionCount = max(1, conditions)
        mutex = .allocate(capacity: 1)
        self.conditions = .allocate(capacity: conditionCount)
        pthread_mutex_init(mutex, nil)
        for index in 0..<conditionCount { pthread_cond_init(self.conditions + index, nil) }
    }

    deinit {
        for index in 0..<conditionCount { pthread_cond_destroy(conditions + index) }
        pthread_mutex_destroy(mutex)
        conditions.deallocate()
        mutex.deallocate()
    }

    @usableFromInline package func lock() { pthread_mutex_lock(mutex) }
    @usableFromInline package func unlock() { pthread_mutex_unlock(mutex) }

    /// Waits for a signal on condition `condition`; the lock must be held and is held again on
    /// return.
    package func wait(condition: Int = 0) { pthread_cond_wait(conditions + condition, mutex) }

    /// Waits for a signal on condition `condition` or until `seconds` have passed; the lock must
    /// be held.
    package func wait(condition: Int = 0, seconds: Double) {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let total = Double(now.tv_sec) + Double(now.tv_nsec) / 1e9 + max(0, seconds)
        var deadline = timespec()
        deadline.tv_sec = Int(total)
        deadline.tv_nsec = Int((total - Double(Int(total))) * 1e9)
        pthread_cond_timedwait(conditions + condition, mutex, &deadline)
    }

    /// Wakes one thread waiting on condition `condition`.
    package func signal(condition: Int = 0) { pthread_cond_signal(conditions + condition) }

    /// Wakes every thread waiting on the first condition.
    package func broadcast() { pthread_cond_broadcast(conditions) }

    /// Runs `body` with the lock held.
    @inline(__always)
    package func withLock<R>(_ body: () throws -> R) rethrows -> R {
        lock()
        defer { unlock() }
        return try body()
    }
}
