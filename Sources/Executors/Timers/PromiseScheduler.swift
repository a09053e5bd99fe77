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
    /// Where the action is: it leaves `pending` once, to `started` (``fire()``) or `cancelled`;
    /// the caller that moves it takes the action, and only a winning ``cancel()`` uses the rest.
    private let state = Atomic<State>(.pending)
    private let parts: Mutex<Parts>
    /// The action's place in `queue`, kept by the queue under its own lock (which orders every
    /// access: relaxed).
    package let queueIndex = Atomic<Int>(-1)

    /// Where the action is (see `state`).
    private enum State: UInt8, AtomicRepresentable {
        case pending, started, cancelled
    }

    /// The action, and what the scheduler sets before it hands the action out.
    private struct Parts {
        var action: (@Sendable () -> Void)?
        /// The queue to leave when cancelled.
        weak var queue: (any ScheduledActionQueue)?
        /// The sleeping task to cancel when cancelled (``ClockScheduler``).
        var task: Task<Void, Never>?
    }

    /// Creates a handle for `action`. Schedulers call ``fire()`` when it is due.
    public init(_ action: @escaping @Sendable () -> Void) { parts = Mutex(Parts(action: action)) }

    /// The queue the action leaves when cancelled; set by its scheduler before it hands the action out.
    package var queue: (any ScheduledActionQueue)? {
        get { parts.withLock { $0.queue } }
        set { parts.withLock { $0.queue = newValue } }
    }

    /// The sleeping task a cancel also cancels; set by ``ClockScheduler``.
    package var task: Task<Void, Never>? {
        get { parts.withLock { $0.task } }
        set { parts.withLock { $0.task = newValue } }
    }

    /// Cancels the action if it has not started; returns whether it had not.
    ///
    /// The action's closure and its place in the scheduler are released now, not at the deadline.
    @discardableResult
    public func cancel() -> Bool {
        schedulingPoint("timer.cancel")
        guard state.compareExchange(expected: .pending, desired: .cancelled, ordering: .acquiringAndReleasing).exchanged else {
            return false
        }
        // Taken out under the lock, let go of after it: releasing the closure may run code that
        // cancels this action again.
        schedulingPoint("timer.cancel.parts")
        let (action, queue, task) = parts.withLock { ($0.action.take(), $0.queue, $0.task.take()) }
        _ = consume action
        queue?.remove(self)
        task?.cancel()
        return true
    }

    /// Whether ``cancel()`` won before the action started.
    public var isCancelled: Bool {
        schedulingPoint("timer.isCancelled")
        return state.load(ordering: .acquiring) == .cancelled
    }

    /// Runs the action unless it was cancelled or has already run. For schedulers.
    public func fire() {
        schedulingPoint("timer.fire")
        guard state.compareExchange(expected: .pending, desired: .started, ordering: .acquiringAndReleasing).exchanged else {
            return
        }
        schedulingPoint("timer.fire.parts")
        let runnable = parts.withLock { $0.action.take() }
        runnable?()
    }
}

/// A scheduler's queue of pending actions, which a cancelled action leaves at once.
package protocol ScheduledActionQueue: AnyObject, Sendable {
    /// Removes `action` if it is still queued.
    func remove(_ action: ScheduledAction)
}
