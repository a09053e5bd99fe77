/// Where one pool worker sleeps: ``park()`` returns once ``unpark()`` has been called, and an
/// `unpark` that comes first is kept, so a wake-up is never lost.
///
/// Each worker has its own, so a wake-up goes to the worker the pool chose (the one that parked
/// last) and to no other, and waking needs no lock that the queue's users contend for.
package final class Parker: Sendable {
    private let token = LockedState(false)

    package init() {}

    /// Sleeps until ``unpark()`` is called, or returns at once if it already was; either way the
    /// call is used up.
    package func park() {
        token.withLock(waiting: { (notified: inout Bool) -> LockedState<Bool>.Step<Void> in
            guard notified else { return .wait(seconds: nil) }
            notified = false
            return .done(())
        })
    }

    /// Wakes the parked worker, or lets its next ``park()`` return at once.
    package func unpark() {
        token.withLockWakingWaiters { $0 = true }
    }
}
