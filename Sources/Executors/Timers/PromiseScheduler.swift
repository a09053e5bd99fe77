import Synchronization

/// A source of time for timeouts, delays and retries: it runs an action after a delay.
///
/// ``TimerThread/system`` uses the real clock. Tests use a ``ManualScheduler`` and move time
/// forward themselves, so timing code is tested without sleeping. ``ClockScheduler`` adapts any
/// `Clock` whose duration is `Duration` (for example a test clock from another library).
public protocol PromiseScheduler: AnyObject, Sendable {
    /// Runs `action` once, after `delay`, unless the returned handle is cancelled first.
    ///
    /// - Parameters:
    ///   - delay: How long to wait; zero or negative means "as soon as possible".
    ///   - action: Quick work: it runs on the scheduler's thread.
    /// - Returns: A handle that cancels the action if it has not started.
    func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> ScheduledAction
}

extension PromiseScheduler where Self == TimerThread {
    /// The real clock: a shared timer thread.
    public static var system: TimerThread { TimerThread.shared }
}

/// A scheduled action that can be cancelled until it starts.
///
/// The action's closure is released as soon as it has run or been cancelled, and a cancelled
/// action leaves its scheduler's queue at once (L2): a timer whose promise settled early holds no
/// memory until its deadline.
public final class ScheduledAction: Sendable {
    /// Where the action is. It leaves `pending` once, to `started` (``fire()``) or `cancelled`,
    /// and the closure and the sleeping task leave with that one transition: each is run or
    /// cancelled by exactly one caller, after the lock is left.
    private enum State {
        case pending(action: @Sendable () -> Void, task: Task<Void, Never>?)
        case started
        case cancelled
    }

    private let state: Mutex<State>
    /// The queue to leave when cancelled.
    private weak let queue: (any ScheduledActionQueue)?
    /// The action's place in its queue, kept by the queue under the queue's lock (which orders
    /// the accesses: relaxed loads and stores suffice).
    package let queueIndex = Atomic<Int>(-1)

    /// Creates a handle for `action`. Schedulers call ``fire()`` when it is due.
    public convenience init(_ action: @escaping @Sendable () -> Void) { self.init(action, queue: nil) }

    /// Creates a handle for `action` that leaves `queue` when cancelled.
    package init(_ action: @escaping @Sendable () -> Void, queue: (any ScheduledActionQueue)?) {
        state = Mutex(.pending(action: action, task: nil))
        self.queue = queue
    }

    /// Gives the action the task that sleeps until its deadline (``ClockScheduler``): cancelling
    /// the action cancels the task. A task attached after the action was cancelled is cancelled
    /// at once.
    package func attach(_ task: Task<Void, Never>) {
        let attached = state.withLock { state in
            guard case .pending(let action, nil) = state else { return false }
            state = .pending(action: action, task: task)
            return true
        }
        if !attached { task.cancel() }
    }

    /// Moves the state on to `next` if the action is pending, and returns what it was. The
    /// closure leaves the lock in the returned value and is released by the caller, so that
    /// nothing its captures' `deinit`s do runs with the lock held.
    private func leavePending(for next: State) -> State {
        state.withLock { state in
            let previous = state
            if case .pending = previous { state = next }
            return previous
        }
    }

    /// Cancels the action if it has not started; returns whether it had not.
    ///
    /// The action's closure and its place in the scheduler are released now, not at the deadline.
    @discardableResult
    public func cancel() -> Bool {
        guard case .pending(_, let task) = leavePending(for: .cancelled) else { return false }
        queue?.remove(self)
        task?.cancel()
        return true
    }

    /// Whether ``cancel()`` won before the action started.
    public var isCancelled: Bool {
        state.withLock { state in
            if case .cancelled = state { return true }
            return false
        }
    }

    /// Runs the action unless it was cancelled or has already run. For schedulers.
    public func fire() {
        guard case .pending(let action, _) = leavePending(for: .started) else { return }
        action()
    }
}

/// A scheduler's queue of pending actions, which a cancelled action leaves at once.
package protocol ScheduledActionQueue: AnyObject, Sendable {
    /// Removes `action` if it is still queued.
    func remove(_ action: ScheduledAction)
}
