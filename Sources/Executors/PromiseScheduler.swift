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
/// The action's closure is released as soon as it has run or been cancelled, so a cancelled
/// timer holds nothing alive while it waits for its deadline in a scheduler's queue.
public final class ScheduledAction: @unchecked Sendable {
    // Safety (`@unchecked Sendable`): `action` and `state` are guarded by `lock`.
    private let lock = ConditionLock()
    private var action: (@Sendable () -> Void)?
    private var state: UInt8 = 0 // 0 pending, 1 started, 2 cancelled

    /// Creates a handle for `action`. Schedulers call ``fire()`` when it is due.
    public init(_ action: @escaping @Sendable () -> Void) { self.action = action }

    /// Cancels the action if it has not started; returns whether it had not.
    @discardableResult
    public func cancel() -> Bool {
        let released: (@Sendable () -> Void)? = lock.withLock {
            guard state == 0 else { return nil }
            state = 2
            defer { action = nil }
            return action
        }
        return released != nil
    }

    /// Whether ``cancel()`` won before the action started.
    public var isCancelled: Bool { lock.withLock { state == 2 } }

    /// Runs the action unless it was cancelled or has already run. For schedulers.
    public func fire() {
        let runnable: (@Sendable () -> Void)? = lock.withLock {
            guard state == 0 else { return nil }
            state = 1
            defer { action = nil }
            return action
        }
        runnable?()
    }
}

/// Converts a duration to seconds.
package func seconds(_ duration: Duration) -> Double {
    let (seconds, attoseconds) = duration.components
    return Double(seconds) + Double(attoseconds) / 1e18
}
