/// A ``PromiseScheduler`` whose time moves only when told: for deterministic, instant tests of
/// timeouts, delays and retries.
///
/// ```swift
/// let time = ManualScheduler()
/// let slow = promise.timeout(after: .seconds(5), scheduler: time)
/// time.advance(by: .seconds(5))   // the timeout fires now, on this thread
/// ```
public final class ManualScheduler: PromiseScheduler, ScheduledActionQueue, Sendable {
    private let state = LockedState(Timeline())

    /// The manual time and the actions waiting for it.
    private struct Timeline: Sendable {
        var now: Duration = .zero
        var sequence: UInt64 = 0
        var entries: [(deadline: Duration, sequence: UInt64, action: ScheduledAction)] = []
    }

    /// Creates a scheduler at time zero.
    public init() {}

    /// The time elapsed so far.
    public var elapsed: Duration { state.withLock { $0.now } }

    /// How many actions were ever scheduled.
    package var scheduledTotal: UInt64 { state.withLock { $0.sequence } }

    /// Actions scheduled and neither run nor cancelled.
    public var pendingCount: Int { state.withLock { $0.entries.count } }

    /// Schedules `action` at the current manual time plus `delay`; it runs during an ``advance(by:)`` that reaches it.
    public func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> ScheduledAction {
        let handle = ScheduledAction(action)
        handle.queue = self
        state.withLock { state in
            state.sequence += 1
            state.entries.append((state.now + max(.zero, delay), state.sequence, handle))
        }
        return handle
    }

    /// Moves time forward by `duration`, running every action that falls due, in deadline order,
    /// on the calling thread. Actions scheduled by those actions run too if they fall due.
    public func advance(by duration: Duration) {
        let target = state.withLock { $0.now + duration }
        while fireNext(dueBy: target) {}
        // Another thread's advance may have gone further meanwhile: time never moves back.
        state.withLock { $0.now = max($0.now, target) }
    }

    /// The deadline of the earliest action waiting, if any.
    package var nextDeadline: Duration? {
        state.withLock { $0.entries.map(\.deadline).min() }
    }

    /// Runs the earliest action due by `target` (moving time to its deadline); returns whether
    /// one ran. For a driver that runs other work between actions.
    package func fireNext(dueBy target: Duration) -> Bool {
        guard let next = takeNext(dueBy: target) else { return false }
        next.fire()
        return true
    }

    /// Takes every action due at the earliest deadline, if that is no later than `target` (moving
    /// time to it), in the order they were scheduled: for a driver that fires them in an order of
    /// its own choosing, as a program's timers due together may fire.
    package func takeEarliestDue(by target: Duration) -> [ScheduledAction] {
        state.withLock { state in
            guard let earliest = state.entries.map(\.deadline).min(), earliest <= target else { return [] }
            let due = state.entries.filter { $0.deadline == earliest }.sorted { $0.sequence < $1.sequence }
            state.entries.removeAll { $0.deadline == earliest }
            state.now = max(state.now, earliest)
            return due.map(\.action)
        }
    }

    /// Moves time to `target`, if it is later than now, running nothing.
    package func moveTime(to target: Duration) {
        state.withLock { $0.now = max($0.now, target) }
    }

    /// Cancels every waiting action: their closures, and what those hold, are released now.
    package func cancelAll() {
        let entries = state.withLock { state in
            defer { state.entries = [] }
            return state.entries
        }
        for entry in entries { entry.action.cancel() }
    }

    /// Drops a cancelled action, so that it holds nothing until its deadline.
    package func remove(_ action: ScheduledAction) {
        state.withLock { $0.entries.removeAll { $0.action === action } }
    }

    private func takeNext(dueBy target: Duration) -> ScheduledAction? {
        state.withLock { state in
            guard let index = state.entries.indices.min(by: {
                (state.entries[$0].deadline, state.entries[$0].sequence) < (state.entries[$1].deadline, state.entries[$1].sequence)
            }), state.entries[index].deadline <= target else { return nil }
            let entry = state.entries.remove(at: index)
            state.now = max(state.now, entry.deadline)
            return entry.action
        }
    }
}

/// A ``PromiseScheduler`` over any `Clock` measured in `Duration`, by sleeping in a task.
///
/// Cancelling a scheduled action cancels its sleeping task, which ends at once.
public final class ClockScheduler<C: Clock>: PromiseScheduler where C.Duration == Duration {
    private let clock: C

    /// Creates a scheduler over `clock`.
    public init(_ clock: C) { self.clock = clock }

    /// Sleeps on the clock in a task, then runs `action` unless it was cancelled.
    public func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> ScheduledAction {
        let handle = ScheduledAction(action)
        let clock = clock
        // Cancelling the action cancels the sleep too, so the task ends at once (L2).
        handle.task = Task {
            try? await clock.sleep(for: delay)
            if !Task.isCancelled { handle.fire() }
        }
        return handle
    }
}
