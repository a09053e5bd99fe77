/// A FIFO of work items linked through ``WorkItem/next``. Not thread-safe: its owner guards it.
///
/// The chain from `head` owns the items. `tail` is not retained: it is the last item of that
/// chain, alive for as long as it is queued, and `nil` exactly when `head` is. Items move in and
/// out without retain or release traffic beyond the one reference the queue holds (every hop to a
/// context goes through one of these).
///
/// `Sendable`, so that a ``LockedState`` may hold it: a queue moved to another thread takes the
/// items it owns along (they are `Sendable`), and `tail` points into that same chain.
@usableFromInline
package struct WorkQueue: Sendable {
    private var head: WorkItem?
    private var tail: Unmanaged<WorkItem>?
    package private(set) var count = 0

    @usableFromInline package init() {}

    package var isEmpty: Bool { head == nil }

    @usableFromInline
    package mutating func append(_ item: WorkItem) {
        item.next = nil
        let last = Unmanaged.passUnretained(item)
        if let tail {
            tail._withUnsafeGuaranteedRef { $0.next = item }
        } else {
            head = item
        }
        tail = last
        count += 1
    }

    package func peek() -> WorkItem? { head }

    @usableFromInline
    package mutating func popFirst() -> WorkItem? {
        guard let item = head.take() else { return nil }
        head = item.next.take()
        if head == nil { tail = nil }
        count -= 1
        return item
    }

    /// Removes `item` if it is queued; returns whether it was.
    package mutating func remove(_ item: WorkItem) -> Bool {
        var previous: WorkItem? = nil
        var current = head
        while let node = current {
            if node === item {
                if let previous { previous.next = node.next } else { head = node.next }
                if tail?.toOpaque() == Unmanaged.passUnretained(node).toOpaque() {
                    tail = previous.map { Unmanaged.passUnretained($0) }
                }
                node.next = nil
                count -= 1
                return true
            }
            previous = node
            current = node.next
        }
        return false
    }
}
