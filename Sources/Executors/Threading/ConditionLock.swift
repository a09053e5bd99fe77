/// A mutex with a condition variable, built on pthreads.
///
/// The worker pool and the run-loop threads park idle threads on it. pthreads are used rather
/// than `Synchronization.Mutex` because ThreadSanitizer models them exactly.
///
/// Safety (`@unchecked Sendable`): the two pthread objects live at stable heap addresses that
/// are created in `init` and destroyed in `deinit`; every other access goes through the
/// pthread functions, which are thread-safe by contract.
@usableFromInline
package final class ConditionLock: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>

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

    @usableFromInline package func lock() { pthread_mutex_lock(mutex) }
    @usableFromInline package func unlock() { pthread_mutex_unlock(mutex) }

    /// Waits for a signal; the lock must be held and is held again on return.
    package func wait() { pthread_cond_wait(condition, mutex) }

    /// Waits for a signal or until `seconds` have passed; the lock must be held.
    package func wait(seconds: Double) {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let total = Double(now.tv_sec) + Double(now.tv_nsec) / 1e9 + max(0, seconds)
        var deadline = timespec()
        deadline.tv_sec = Int(total)
        deadline.tv_nsec = Int((total - Double(Int(total))) * 1e9)
        pthread_cond_timedwait(condition, mutex, &deadline)
    }

    /// Wakes one waiting thread.
    package func signal() { pthread_cond_signal(condition) }

    /// Wakes every waiting thread.
    package func broadcast() { pthread_cond_broadcast(condition) }

    /// Runs `body` with the lock held.
    @inline(__always)
    package func withLock<R>(_ body: () throws -> R) rethrows -> R {
        lock()
        defer { unlock() }
        return try body()
    }
}
