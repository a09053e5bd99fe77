/// State that one thread at a time may touch: a value and the lock that guards it, in one object.
///
/// The library's lock-guarded types keep their mutable fields in one of these instead of pairing a
/// lock with unchecked `var`s themselves, so that those types are plainly `Sendable` and the
/// compiler checks them: everything else they hold is immutable and `Sendable`.
///
/// Safety (`@unchecked Sendable`): `state` is read and written only inside ``withLock(_:)`` and
/// ``wait(timeout:until:)``, with `lock` held, so no two threads touch it at once; `State` is
/// `Sendable`, so what a closure takes out of it may cross threads. The runtime's exclusivity
/// check is off because the lock already makes every access exclusive.
package final class LockedState<State: Sendable>: @unchecked Sendable {
    private let lock = ConditionLock()
    @exclusivity(unchecked) private var state: State

    /// Guards `state`.
    package init(_ state: State) { self.state = state }

    /// Runs `body` with the state, the lock held.
    ///
    /// - Parameter body: Reads or changes the state; it must not block or call back into code
    ///   that takes this lock.
    /// - Returns: What `body` returns.
    @inline(__always)
    package func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&state)
    }

    /// Blocks the calling thread until `condition` holds for the state, or `timeout` seconds have
    /// passed (`nil`: no limit). Woken by ``withLockWakingWaiters(_:)``.
    ///
    /// - Returns: Whether `condition` held when the wait ended.
    package func wait(timeout: Double?, until condition: (State) -> Bool) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard let timeout else {
            while !condition(state) { lock.wait() }
            return true
        }
        let deadline = monotonicSeconds() + timeout
        while !condition(state) {
            let remaining = deadline - monotonicSeconds()
            if remaining <= 0 { return false }
            lock.wait(seconds: remaining)
        }
        return true
    }

    /// ``withLock(_:)``, then wakes every thread blocked in ``wait(timeout:until:)``.
    package func withLockWakingWaiters<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        let result = try withLock(body)
        lock.broadcast()
        return result
    }
}
