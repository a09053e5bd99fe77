import ActorPromise
import ActorPromiseExecutors

/// A promise fulfilled once `count` calls of `tick()` have happened.
final class Countdown: Sendable {
    private let remaining: Locked<Int>
    private let resolver: Resolver<Void>
    let done: Promise<Void>

    init(_ count: Int) {
        remaining = Locked(count)
        (done, resolver) = Promise<Void>.pending()
        if count == 0 { resolver.fulfill() }
    }

    func tick() {
        if remaining.withLock({ $0 -= 1; return $0 }) == 0 { resolver.fulfill() }
    }

    /// Waits for every tick; fails with `timedOut` instead of hanging if work was lost.
    func wait() async throws { try await done.guardedAgainstHang().value }
}

/// A one-shot gate a work item can block on (a pthread condition, so TSan models it).
final class Gate: @unchecked Sendable {
    // Safety: `isOpen` is guarded by `lock`.
    private let lock = ConditionLock()
    private var isOpen = false
    func open() { lock.lock(); isOpen = true; lock.unlock(); lock.broadcast() }
    func wait() { lock.lock(); while !isOpen { lock.wait() }; lock.unlock() }
    /// Waits until the gate opens or `deadline` passes; returns whether the gate opened.
    func wait(until deadline: HangDeadline) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        // A tenth of a second at a time: the deadline is on the hang clock, not the wall clock.
        while !isOpen {
            if deadline.hasPassed { return false }
            lock.wait(seconds: 0.1)
        }
        return true
    }
}
