import ActorPromise

/// A count that a test can await: ``reach(_:)`` returns once ``increment()`` brought the count to
/// at least that number. Event-driven, not polled: a busy machine makes a test slower, never
/// wrong, and no cooperative thread spins while it waits.
final class Tally: Sendable {
    private struct State: Sendable {
        var count = 0
        var waiters: [(target: Int, resolver: Resolver<Void>)] = []
    }

    private let state = Locked(State())

    /// The count now.
    var current: Int { state.withLock { $0.count } }

    /// Adds one and wakes those waiting for the new count; returns the new count.
    @discardableResult
    func increment() -> Int {
        let (count, due) = state.withLock { state -> (Int, [Resolver<Void>]) in
            state.count += 1
            let count = state.count
            let due = state.waiters.filter { $0.target <= count }.map(\.resolver)
            state.waiters.removeAll { $0.target <= count }
            return (count, due)
        }
        for resolver in due { resolver.fulfill() }
        return count
    }

    /// Waits until the count is at least `target`; fails with `timedOut` after the hang guard
    /// instead of hanging if what it waits for was lost.
    func reach(_ target: Int) async throws {
        let (reached, resolver) = Promise<Void>.pending()
        let now = state.withLock { state -> Bool in
            if state.count >= target { return true }
            state.waiters.append((target, resolver))
            return false
        }
        if now { resolver.fulfill() }
        try await reached.guardedAgainstHang().value
    }
}
