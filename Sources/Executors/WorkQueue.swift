/// A FIFO of runnables in a ring buffer. Not thread-safe: its owner guards it.
///
/// The buffer grows by doubling and never shrinks, so a queue in steady use allocates nothing per
/// item; items move in and out without reference-counting traffic beyond the one reference the
/// queue holds (every hop to a context goes through one of these).
@usableFromInline
package struct WorkQueue: Sendable {
    /// A power of two in length (or empty); `head` indexes the oldest item.
    @usableFromInline var slots: ContiguousArray<(any Runnable)?> = []
    @usableFromInline var head = 0
    package private(set) var count = 0

    @usableFromInline package init() {}

    /// A queue with room for `capacity` items before it grows.
    @inlinable package init(capacity: Int) {
        if capacity > 0 { slots = ContiguousArray(repeating: nil, count: Self.roundUp(capacity)) }
    }

    package var isEmpty: Bool { count == 0 }

    @usableFromInline
    package mutating func append(_ item: consuming any Runnable) {
        if count == slots.count { grow() }
        slots[(head &+ count) & (slots.count &- 1)] = item
        count &+= 1
    }

    package func peek() -> (any Runnable)? { count == 0 ? nil : slots[head] }

    @usableFromInline
    package mutating func popFirst() -> (any Runnable)? {
        guard count > 0 else { return nil }
        let item = slots[head].take()
        head = (head &+ 1) & (slots.count &- 1)
        count &-= 1
        return item
    }

    /// Calls `body` with each queued item, oldest first.
    package func forEach(_ body: (any Runnable) -> Void) {
        for offset in 0..<count { body(slots[(head + offset) & (slots.count - 1)].unsafelyUnwrapped) }
    }

    /// Removes `item` if it is queued; returns whether it was. The items behind it keep their order.
    package mutating func remove(_ item: any Runnable) -> Bool {
        let mask = slots.count - 1
        guard let offset = (0..<count).first(where: { slots[(head + $0) & mask].unsafelyUnwrapped === item }) else {
            return false
        }
        for index in offset..<(count - 1) {
            slots[(head + index) & mask] = slots[(head + index + 1) & mask].take()
        }
        slots[(head + count - 1) & mask] = nil
        count -= 1
        return true
    }

    @usableFromInline
    mutating func grow() {
        var larger = ContiguousArray<(any Runnable)?>(repeating: nil, count: Swift.max(16, slots.count * 2))
        for offset in 0..<count { larger[offset] = slots[(head + offset) & (slots.count - 1)].take() }
        slots = larger
        head = 0
    }

    @usableFromInline static func roundUp(_ capacity: Int) -> Int {
        var size = 16
        while size < capacity { size *= 2 }
        return size
    }
}
