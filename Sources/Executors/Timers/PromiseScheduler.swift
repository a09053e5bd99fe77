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
public final class ScheduledAction: @unchecked Sendable {
    // Safety (`@unchecked Sendable`): `state` is atomic, and the one caller that moves it away from
    // pending (`fire` or `cancel`) is the only one to touch `action` after `init`. `queue` and
    // `task` are written by the scheduler before it hands the action out, and only the winning
    // `cancel` reads them afterwards. `queueIndex` belongs to
    // the queue and is guarded by its lock.
    private let state = Atomic<State>(.pending)
    @exclusivity(unchecked) private var action: (@Sendable () -> Void)?
    /// The queue to leave when cancelled.
    package weak var queue: (any ScheduledActionQueue)?
    /// The sleeping task to cancel when cancelled (``ClockScheduler``).
    @exclusivity(unchecked) package var task: Task<Void, Never>?
    /// The action's place in `queue`, kept by the queue under its lock.
    @exclusivity(unchecked) package var queueIndex = -1

    /// Where the action is: it leaves `pending` once, to `started` (``fire()``) or `cancelled`.
    private enum State: UInt8, AtomicRepresentable {
        case pending, started, cancelled
    }

    /// Creates a handle for `action`. Schedulers call ``fire()`` when it is due.
    public init(_ action: @escaping @Sendable () -> Void) { self.action = action }

    /// Cancels the action if it has not started; returns whether it had not.
    ///
    /// The action's closure and its place in the scheduler are released now, not at the deadline.
    @discardableResult
    public func cancel() -> Bool {
        schedulingPoint("timer.cancel")
        guard state.compareExchange(expected: .pending, desired: .cancelled, ordering: .acquiringAndReleasing).exchanged else {
            return false
        }
        action = nil
        queue?.remove(self)
        task?.cancel()
        task = nil
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
        let runnable = action
        action = nil
        runnable?()
    }
}

/// A scheduler's queue of pending actions, which a cancelled action leaves at once.
package protocol ScheduledActionQueue: AnyObject, Sendable {
    /// Removes `action` if it is still queued.
    func remove(_ action: ScheduledAction)
}
