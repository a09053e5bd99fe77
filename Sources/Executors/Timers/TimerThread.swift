/// The real-time ``PromiseScheduler``: one thread that sleeps until the next deadline.
///
/// Actions run on the timer thread, in deadline order (equal deadlines in scheduling order); keep
/// them short — settling a promise is the intended use, and its handlers run on their own contexts.
/// A cancelled action leaves the queue at once, so timers of promises that settled early cost no
/// memory while their deadline is still ahead (L2).
public final class TimerThread: PromiseScheduler, ScheduledActionQueue, Sendable {
    /// The shared timer thread, started on first use.
    public static let shared = TimerThread()

    /// The pending actions; each queued action's `queueIndex` is guarded by this lock too.
    private let timers = LockedState(TimerHeap())

    private convenience init() { self.init(startsThread: true) }

    /// A timer thread; without a thread of its own (`startsThread: false`), a caller runs its loop
    /// with ``run(until:)`` — the interleaving checker's scenarios do.
    package init(startsThread: Bool) {
        // The thread holds the timer thread's state strongly, for ever (its loop never returns).
        if startsThread { startThread(named: "ActorPromise.timer") { self.loop() } }
    }

    /// Schedules `action` on the timer thread after `delay` of real time.
    public func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> ScheduledAction {
        if let interceptor = ThreadState.withCurrent({ $0.activeInterceptor }), let timers = interceptor as? any TimerInterceptor {
            return timers.clock.schedule(after: delay, action)
        }
        let handle = ScheduledAction(action)
        handle.queue = self
        let deadline = monotonicSeconds() + max(0, seconds(delay))
        timers.withLockWakingWaiters { $0.push(deadline: deadline, action: handle) }
        return handle
    }

    /// Actions waiting for their deadline (cancelled ones have left already).
    public var pendingCount: Int { timers.withLock { $0.count } }

    /// Removes a cancelled action from the heap.
    package func remove(_ action: ScheduledAction) {
        timers.withLock { $0.remove(action) }
    }

    private func loop() -> Never {
        while true { run(until: { false }) }
    }

    /// Fires each action as it falls due, sleeping until the next deadline or a new action, and
    /// returns once `finished` holds (asked before each sleep and after each action).
    package func run(until finished: () -> Bool) {
        while true {
            let due = timers.withLock(waiting: { heap -> LockedState<TimerHeap>.Step<ScheduledAction?> in
                if finished() { return .done(nil) }
                guard let deadline = heap.nextDeadline else { return .wait(seconds: nil) }
                let remaining = deadline - monotonicSeconds()
                return remaining <= 0 ? .done(heap.popFirst()) : .wait(seconds: remaining)
            })
            guard let due else { return }
            due.fire()
        }
    }
}

/// The timer thread's actions: a binary min-heap by deadline (equal deadlines in scheduling
/// order). Each action knows its index, so cancelling removes it at once. Not thread-safe: the
/// timer thread keeps it in a ``LockedState``.
struct TimerHeap: Sendable {
    private struct Entry: Sendable {
        let deadline: Double
        let sequence: UInt64
        let action: ScheduledAction
        func precedes(_ other: Entry) -> Bool {
            deadline < other.deadline || (deadline == other.deadline && sequence < other.sequence)
        }
    }

    private var heap: [Entry] = []
    private var sequence: UInt64 = 0

    var count: Int { heap.count }

    /// The earliest deadline, if any action is waiting.
    var nextDeadline: Double? { heap.first?.deadline }

    mutating func push(deadline: Double, action: ScheduledAction) {
        sequence += 1
        heap.append(Entry(deadline: deadline, sequence: sequence, action: action))
        siftUp(from: heap.count - 1)
    }

    /// Removes and returns the action with the earliest deadline; the heap must not be empty.
    mutating func popFirst() -> ScheduledAction {
        remove(at: 0).action
    }

    /// Removes `action` if it is still queued.
    mutating func remove(_ action: ScheduledAction) {
        let index = action.queueIndex.load(ordering: .relaxed)
        guard index >= 0, index < heap.count, heap[index].action === action else { return }
        remove(at: index)
    }

    private mutating func place(_ entry: Entry, at index: Int) {
        heap[index] = entry
        entry.action.queueIndex.store(index, ordering: .relaxed)
    }

    @discardableResult
    private mutating func remove(at index: Int) -> Entry {
        let removed = heap[index]
        removed.action.queueIndex.store(-1, ordering: .relaxed)
        let last = heap.removeLast()
        if index < heap.count {
            place(last, at: index)
            siftDown(from: siftUp(from: index))
        }
        // A burst of timers that all left must not keep its peak capacity.
        if heap.capacity > 1024, heap.count < heap.capacity / 4 { heap = Array(heap) }
        return removed
    }

    @discardableResult
    private mutating func siftUp(from start: Int) -> Int {
        var child = start
        let entry = heap[child]
        while child > 0 {
            let parent = (child - 1) / 2
            guard entry.precedes(heap[parent]) else { break }
            place(heap[parent], at: child)
            child = parent
        }
        place(entry, at: child)
        return child
    }

    private mutating func siftDown(from start: Int) {
        var parent = start
        let entry = heap[parent]
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = left
            guard left < heap.count else { break }
            if right < heap.count, heap[right].precedes(heap[left]) { smallest = right }
            guard heap[smallest].precedes(entry) else { break }
            place(heap[smallest], at: parent)
            parent = smallest
        }
        place(entry, at: parent)
    }
}
