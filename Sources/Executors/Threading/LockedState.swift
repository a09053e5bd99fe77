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

    /// Creates the state and its lock, with `conditions` condition variables to sleep on (the
    /// first is the default of ``withLock(on:waiting:)`` and the one ``withLockWakingWaiters(_:)``
    /// wakes).
    @inlinable
    package init(_ state: State, conditions: Int = 1) {
        self.state = state
        lock = ConditionLock(conditions: conditions)
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

    /// What ``withLock(on:waiting:)``'s step decided: finish with a result, or sleep until woken
    /// (at most `seconds`, if given) and look again.
    package enum Step<Result> {
        case done(Result)
        case wait(seconds: Double?)
    }

    /// Runs `step` with the state, the lock held, until it returns `.done`; between tries the
    /// thread sleeps on condition `condition`, the lock released, until it is woken — by
    /// ``withLockWakingWaiters(_:)`` (condition 0) or ``signal(_:)`` — or the step's time is up.
    /// The blocking loops of the executors (a run-loop thread waiting for work, the timer thread
    /// waiting for its next deadline, a blocking `wait()`, a pool thread parking on its own
    /// condition) are written with it.
    ///
    /// - Returns: The result of the `.done` step.
    @inline(__always)
    package func withLock<Result>(
        on condition: Int = 0, waiting step: (inout State) throws -> Step<Result>
    ) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        while true {
            switch try step(&state) {
            case .done(let result): return result
            case .wait(let seconds?): lock.wait(condition: condition, seconds: seconds)
            case .wait(nil): lock.wait(condition: condition)
            }
        }
    }

    /// Wakes the thread sleeping in ``withLock(on:waiting:)`` on condition `condition`, if any.
    /// Call it after changing the state, once the lock is released.
    @inline(__always)
    package func signal(_ condition: Int) { lock.signal(condition: condition) }

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
