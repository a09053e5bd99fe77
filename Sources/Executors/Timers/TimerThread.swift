/// The real-time ``PromiseScheduler``: one thread that sleeps until the next deadline.
///
/// Actions run on the timer thread, in deadline order (equal deadlines in scheduling order); keep
/// them short — settling a promise is the intended use, and its handlers run on their own contexts.
/// A cancelled action leaves the queue at once, so timers of promises that settled early cost no
/// memory while their deadline is still ahead (L2).
public final class TimerThread: PromiseScheduler, ScheduledActionQueue, @unchecked Sendable {
    // Safety (`@unchecked Sendable`): `heap`, `sequence` and each queued action's `queueIndex`
    // are guarded by `lock`.

    /// The shared timer thread, started on first use.
    public static let shared = TimerThread()

    private struct Entry {
        let deadline: Double
        let sequence: UInt64
        let action: ScheduledAction
        func precedes(_ other: Entry) -> Bool {
            deadline < other.deadline || (deadline == other.deadline && sequence < other.sequence)
        }
    }

    private let lock = ConditionLock()
    /// A binary min-heap by deadline; each action knows its index, so cancelling removes it.
    @exclusivity(unchecked) private var heap: [Entry] = []
    @exclusivity(unchecked) private var sequence: UInt64 = 0

    private init() {
        // The thread holds the timer thread's state strongly, for ever (`loop` never returns).
        startThread(named: "ActorPromise.timer") { self.loop() }
    }

    /// Schedules `action` on the timer thread after `delay` of real time.
    public func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> ScheduledAction {
        let handle = ScheduledAction(action)
        handle.queue = self
        lock.lock()
        sequence += 1
        push(Entry(deadline: monotonicSeconds() + max(0, seconds(delay)), sequence: sequence, action: handle))
        lock.unlock()
        lock.signal()
        return handle
    }

    /// Actions waiting for their deadline (cancelled ones have left already).
    public var pendingCount: Int { lock.withLock { heap.count } }

    /// Removes a cancelled action from the heap.
    package func remove(_ action: ScheduledAction) {
        lock.withLock {
            let index = action.queueIndex
            guard index >= 0, index < heap.count, heap[index].action === action else { return }
            remove(at: index)
        }
    }

    private func loop() -> Never {
        while true {
            lock.lock()
            while true {
                guard let first = heap.first else {
                    lock.wait()
                    continue
                }
                let remaining = first.deadline - monotonicSeconds()
                if remaining <= 0 { break }
                lock.wait(seconds: remaining)
            }
            let due = remove(at: 0)
            lock.unlock()
            due.action.fire()
        }
    }

    // MARK: The heap (lock held)

    private func place(_ entry: Entry, at index: Int) {
        heap[index] = entry
        entry.action.queueIndex = index
    }

    private func push(_ entry: Entry) {
        heap.append(entry)
        siftUp(from: heap.count - 1)
    }

    @discardableResult
    private func remove(at index: Int) -> Entry {
        let removed = heap[index]
        removed.action.queueIndex = -1
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
    private func siftUp(from start: Int) -> Int {
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

    private func siftDown(from start: Int) {
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
