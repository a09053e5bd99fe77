/// The real-time ``PromiseScheduler``: one thread that sleeps until the next deadline.
///
/// Actions run on the timer thread, in deadline order (equal deadlines in scheduling order); keep
/// them short — settling a promise is the intended use, and its handlers run on their own contexts.
public final class TimerThread: PromiseScheduler, @unchecked Sendable {
    // Safety (`@unchecked Sendable`): `heap` and `sequence` are guarded by `lock`.

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
    @exclusivity(unchecked) private var heap: [Entry] = []
    @exclusivity(unchecked) private var sequence: UInt64 = 0

    private init() {
        startThread(named: "ActorPromise.timer") { [unowned self] in self.loop() }
    }

    /// Schedules `action` on the timer thread after `delay` of real time.
    public func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> ScheduledAction {
        let handle = ScheduledAction(action)
        lock.lock()
        sequence += 1
        push(Entry(deadline: monotonicSeconds() + max(0, seconds(delay)), sequence: sequence, action: handle))
        lock.unlock()
        lock.signal()
        return handle
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
            let due = pop()
            lock.unlock()
            due.action.fire()
        }
    }

    private func push(_ entry: Entry) {
        heap.append(entry)
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].precedes(heap[parent]) else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private func pop() -> Entry {
        let top = heap[0]
        let last = heap.removeLast()
        if !heap.isEmpty {
            heap[0] = last
            var parent = 0
            while true {
                let left = 2 * parent + 1, right = left + 1
                var smallest = parent
                if left < heap.count, heap[left].precedes(heap[smallest]) { smallest = left }
                if right < heap.count, heap[right].precedes(heap[smallest]) { smallest = right }
                if smallest == parent { break }
                heap.swapAt(parent, smallest)
                parent = smallest
            }
        }
        return top
    }
}
