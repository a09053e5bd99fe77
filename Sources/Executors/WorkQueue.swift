/// The FIFO every context queues its work in.
package typealias WorkQueue = RingQueue<any Runnable>

/// A FIFO in a ring buffer, of runnables (``WorkQueue``) or a promise's observers. Not
/// thread-safe: its owner guards it.
///
/// One reference: the buffer holds its own bookkeeping, so a queue inside a lock's state costs a
/// word. The buffer grows by doubling and never shrinks, so a queue in steady use allocates
/// nothing per item; an item moves in and out without reference-counting traffic beyond the one
/// reference the queue holds (every hop to a context goes through one of these). A copied queue
/// copies its buffer before either copy changes (copy on write), though no context copies one.
@usableFromInline
package struct RingQueue<Element: Sendable>: Sendable {
    /// Safety (`nonisolated(unsafe)`: `ManagedBuffer` is not `Sendable`): the buffer is reached
    /// only through this queue, which its owner guards (a lock, or one thread); a queue sent
    /// elsewhere takes its buffer along, and copies never share a buffer they change.
    @usableFromInline nonisolated(unsafe) var ring: Ring?

    @inlinable package init() {}

    /// A queue with room for `capacity` items before it grows.
    @inlinable package init(capacity: Int) {
        if capacity > 0 { ring = Ring.make(capacity: capacity) }
    }

    @inlinable package var count: Int { ring?.count ?? 0 }

    @inlinable package var isEmpty: Bool { count == 0 }

    @inlinable
    package mutating func append(_ item: consuming Element) {
        // `isKnownUniquelyReferenced` is false for `nil` too: one test covers "no buffer yet".
        if _slowPath(!isKnownUniquelyReferenced(&ring) || ring.unsafelyUnwrapped.isFull) { grow() }
        ring.unsafelyUnwrapped.append(item)
    }

    @inlinable
    package func peek() -> (Element)? {
        guard let ring, ring.count > 0 else { return nil }
        return ring.peek()
    }

    @inlinable
    package mutating func popFirst() -> (Element)? {
        if _slowPath(!isKnownUniquelyReferenced(&ring)) {
            guard ring != nil else { return nil }
            grow()
        }
        return ring.unsafelyUnwrapped.popFirstIfAny()
    }

    /// Calls `body` with each queued item, oldest first.
    package func forEach(_ body: (Element) -> Void) {
        ring?.forEach(body)
    }

    /// Removes the first item that `matches`, if any; returns whether it did. The items behind it
    /// keep their order.
    package mutating func remove(where matches: (Element) -> Bool) -> Bool {
        guard ring != nil else { return false }
        if !isKnownUniquelyReferenced(&ring) { grow() }
        return ring.unsafelyUnwrapped.remove(where: matches)
    }

    /// Makes the buffer unique and not full: a new one, twice as large when full. Inlinable, so
    /// that the items move with code specialized for their type (see `transfer`).
    @inlinable
    mutating func grow() {
        let moves = isKnownUniquelyReferenced(&ring)
        guard let old = ring else {
            ring = Ring.make(capacity: 16)
            return
        }
        let capacity = old.withUnsafeMutablePointerToHeader { $0.pointee.capacity }
        let new = Ring.make(capacity: old.isFull ? capacity * 2 : capacity)
        old.transfer(to: new, moving: moves)
        ring = new
    }

    @usableFromInline
    struct Header {
        @usableFromInline var head = 0
        @usableFromInline var count = 0
        /// A power of two.
        @usableFromInline let capacity: Int
        @usableFromInline init(capacity: Int) { self.capacity = capacity }
    }

    /// The buffer: `capacity` slots, of which `count` from `head` (wrapping) are initialized.
    ///
    /// Every access goes through `withUnsafeMutablePointers`: `header` itself is a class property,
    /// which pays the runtime's exclusivity check on each access (about 40 instructions a hop).
    @usableFromInline
    final class Ring: ManagedBuffer<Header, Element> {
        @inlinable
        static func make(capacity: Int) -> Ring {
            var size = 16
            while size < capacity { size *= 2 }
            let buffer = Ring.create(minimumCapacity: size) { _ in Header(capacity: size) }
            return unsafeDowncast(buffer, to: Ring.self)
        }

        @inlinable var count: Int { withUnsafeMutablePointerToHeader { $0.pointee.count } }

        @inlinable var isFull: Bool { withUnsafeMutablePointerToHeader { $0.pointee.count == $0.pointee.capacity } }

        @inlinable
        func append(_ item: consuming Element) {
            let slot = withUnsafeMutablePointers { header, slots in
                let index = (header.pointee.head &+ header.pointee.count) & (header.pointee.capacity &- 1)
                header.pointee.count &+= 1
                return slots + index
            }
            slot.initialize(to: item)
        }

        @inlinable
        func peek() -> Element {
            withUnsafeMutablePointers { header, slots in slots[header.pointee.head] }
        }

        @inlinable
        func popFirstIfAny() -> Element? {
            withUnsafeMutablePointers { header, slots in
                guard header.pointee.count > 0 else { return nil }
                let item = (slots + header.pointee.head).move()
                header.pointee.head = (header.pointee.head &+ 1) & (header.pointee.capacity &- 1)
                header.pointee.count &-= 1
                return item
            }
        }

        /// Calls `body` with each item, oldest first.
        func forEach(_ body: (Element) -> Void) {
            withUnsafeMutablePointers { header, slots in
                let (head, count, mask) = (header.pointee.head, header.pointee.count, header.pointee.capacity - 1)
                for offset in 0..<count { body(slots[(head + offset) & mask]) }
            }
        }

        /// Moves (or, unless `moving`, copies) every item, oldest first, into `other`. Inlinable,
        /// so that a growing queue copies its items with specialized code (a fan-out's observers
        /// are moved about 1.6 times each as their queue doubles).
        @inlinable
        func transfer(to other: Ring, moving: Bool) {
            withUnsafeMutablePointers { header, slots in
                let mask = header.pointee.capacity - 1
                for offset in 0..<header.pointee.count {
                    let slot = slots + ((header.pointee.head + offset) & mask)
                    other.append(moving ? slot.move() : slot.pointee)
                }
                if moving { header.pointee.count = 0 }
            }
        }

        func remove(where matches: (Element) -> Bool) -> Bool {
            withUnsafeMutablePointers { header, slots in
                let head = header.pointee.head, count = header.pointee.count, mask = header.pointee.capacity - 1
                guard let offset = (0..<count).first(where: { matches(slots[(head + $0) & mask]) }) else { return false }
                (slots + ((head + offset) & mask)).deinitialize(count: 1)
                for index in offset..<(count - 1) {
                    (slots + ((head + index) & mask)).initialize(to: (slots + ((head + index + 1) & mask)).move())
                }
                header.pointee.count -= 1
                return true
            }
        }

        deinit {
            withUnsafeMutablePointers { header, slots in
                let mask = header.pointee.capacity - 1
                for offset in 0..<header.pointee.count { (slots + ((header.pointee.head + offset) & mask)).deinitialize(count: 1) }
            }
        }
    }
}

extension RingQueue where Element == any Runnable {
    /// Removes `item` if it is queued; returns whether it was. The items behind it keep their order.
    package mutating func remove(_ item: any Runnable) -> Bool {
        remove(where: { $0 === item })
    }
}
