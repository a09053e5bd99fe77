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
///
/// The buffer's class is not generic (``RingBuffer``): it holds the items as raw memory that this
/// generic struct reads and writes as `Element`s. In an unoptimized build (tests, TSan) every use
/// of a generic class costs a look-up of its metadata in the runtime, under a lock that the
/// threads of a busy pool contend for; a non-generic class's metadata is a constant.
@usableFromInline
package struct RingQueue<Element: Sendable>: Sendable {
    /// Safety (`nonisolated(unsafe)`: `ManagedBuffer` is not `Sendable`): the buffer is reached
    /// only through this queue, which its owner guards (a lock, or one thread); a queue sent
    /// elsewhere takes its buffer along, and copies never share a buffer they change.
    @usableFromInline nonisolated(unsafe) var ring: RingBuffer?

    @inlinable package init() {}

    /// A queue with room for `capacity` items before it grows.
    @inlinable package init(capacity: Int) {
        if capacity > 0 { ring = Self.makeBuffer(capacity: capacity) }
    }

    @inlinable package var count: Int { ring?.count ?? 0 }

    @inlinable package var isEmpty: Bool { count == 0 }

    @inlinable
    package mutating func append(_ item: consuming Element) {
        // `isKnownUniquelyReferenced` is false for `nil` too: one test covers "no buffer yet".
        if _slowPath(!isKnownUniquelyReferenced(&ring) || ring.unsafelyUnwrapped.isFull) { grow() }
        let slot = ring.unsafelyUnwrapped.slotForAppend()
        slot.assumingMemoryBound(to: Element.self).initialize(to: item)
    }

    @inlinable
    package func peek() -> Element? {
        guard count > 0 else { return nil }
        return ring.unsafelyUnwrapped.slot(at: 0).assumingMemoryBound(to: Element.self).pointee
    }

    @inlinable
    package mutating func popFirst() -> Element? {
        // An empty queue is answered without the uniqueness test (a drain's last look, an idle
        // worker's): nothing is changed.
        guard count > 0 else { return nil }
        if _slowPath(!isKnownUniquelyReferenced(&ring)) { grow() }
        return ring.unsafelyUnwrapped.slotForPopFirst().assumingMemoryBound(to: Element.self).move()
    }

    /// Calls `body` with each queued item, oldest first.
    @inlinable
    package func forEach(_ body: (Element) -> Void) {
        guard let ring else { return }
        for index in 0..<ring.count { body(ring.slot(at: index).assumingMemoryBound(to: Element.self).pointee) }
    }

    /// Removes the first item that `matches`, if any; returns whether it did. The items behind it
    /// keep their order.
    package mutating func remove(where matches: (Element) -> Bool) -> Bool {
        guard ring != nil else { return false }
        if !isKnownUniquelyReferenced(&ring) { grow() }
        let ring = self.ring.unsafelyUnwrapped
        let count = ring.count
        func element(_ index: Int) -> UnsafeMutablePointer<Element> {
            ring.slot(at: index).assumingMemoryBound(to: Element.self)
        }
        guard let found = (0..<count).first(where: { matches(element($0).pointee) }) else { return false }
        element(found).deinitialize(count: 1)
        for index in found..<(count - 1) { element(index).initialize(to: element(index + 1).move()) }
        ring.setCount(count - 1)
        return true
    }

    /// Passes each item, oldest first, to `sieve`, which either hands it back to be kept or takes
    /// it (returns `nil`). The kept items stay, in their order, in the same buffer: a fan-out's
    /// pool observers stay in the queue they were registered in.
    @inlinable
    package mutating func sift(_ sieve: (consuming Element) -> Element?) {
        guard ring != nil else { return }
        if !isKnownUniquelyReferenced(&ring) { grow() }
        let ring = self.ring.unsafelyUnwrapped
        var kept = 0
        for index in 0..<ring.count {
            if let item = sieve(ring.slot(at: index).assumingMemoryBound(to: Element.self).move()) {
                ring.slot(at: kept).assumingMemoryBound(to: Element.self).initialize(to: item)
                kept += 1
            }
        }
        ring.setCount(kept)
    }

    /// Makes the buffer unique and not full: a new one, twice as large when full. Inlinable, so
    /// that the items move with code specialized for their type.
    @inlinable
    mutating func grow() {
        let moves = isKnownUniquelyReferenced(&ring)
        guard let old = ring else {
            ring = Self.makeBuffer(capacity: 16)
            return
        }
        let new = Self.makeBuffer(capacity: old.isFull ? old.slots * 2 : old.slots)
        for index in 0..<old.count {
            let from = old.slot(at: index).assumingMemoryBound(to: Element.self)
            new.slotForAppend().assumingMemoryBound(to: Element.self).initialize(to: moves ? from.move() : from.pointee)
        }
        if moves { old.setCount(0) }
        ring = new
    }

    /// A buffer for at least `capacity` items (a power of two, 16 or more) that knows the items'
    /// type, to destroy those it still holds when it is freed.
    @inlinable
    static func makeBuffer(capacity: Int) -> RingBuffer {
        precondition(MemoryLayout<Element>.alignment <= MemoryLayout<Int>.alignment)
        var size = 16
        while size < capacity { size *= 2 }
        let stride = MemoryLayout<Element>.stride
        let words = (size * stride + MemoryLayout<Int>.stride - 1) / MemoryLayout<Int>.stride
        let buffer = RingBuffer.create(minimumCapacity: words) { _ in
            RingHeader(capacity: size, stride: stride, elementType: Element.self)
        }
        return unsafeDowncast(buffer, to: RingBuffer.self)
    }
}

/// A ``RingBuffer``'s bookkeeping.
@usableFromInline
struct RingHeader {
    @usableFromInline var head = 0
    @usableFromInline var count = 0
    /// A power of two.
    @usableFromInline let capacity: Int
    /// The items' stride in bytes.
    @usableFromInline let stride: Int
    /// The items' type: the buffer's `deinit` destroys the items left as this type.
    @usableFromInline let elementType: Any.Type

    @inlinable init(capacity: Int, stride: Int, elementType: Any.Type) {
        self.capacity = capacity
        self.stride = stride
        self.elementType = elementType
    }
}

/// A ``RingQueue``'s storage: `capacity` slots of raw memory, of which `count` from `head`
/// (wrapping) hold items. It hands out slots; the queue reads and writes them as its `Element`.
///
/// Every access goes through `withUnsafeMutablePointers`: `header` itself is a class property,
/// which pays the runtime's exclusivity check on each access.
@usableFromInline
final class RingBuffer: ManagedBuffer<RingHeader, Int> {
    @inlinable var count: Int { withUnsafeMutablePointerToHeader { $0.pointee.count } }

    /// How many items fit.
    @inlinable var slots: Int { withUnsafeMutablePointerToHeader { $0.pointee.capacity } }

    @inlinable var isFull: Bool { withUnsafeMutablePointerToHeader { $0.pointee.count == $0.pointee.capacity } }

    /// The slot `index` places after the head.
    @inlinable
    func slot(at index: Int) -> UnsafeMutableRawPointer {
        withUnsafeMutablePointers { header, words in
            let position = (header.pointee.head &+ index) & (header.pointee.capacity &- 1)
            return UnsafeMutableRawPointer(words) + position &* header.pointee.stride
        }
    }

    /// Counts one more item and returns its (uninitialized) slot. The buffer must not be full.
    @inlinable
    func slotForAppend() -> UnsafeMutableRawPointer {
        withUnsafeMutablePointers { header, words in
            let position = (header.pointee.head &+ header.pointee.count) & (header.pointee.capacity &- 1)
            header.pointee.count &+= 1
            return UnsafeMutableRawPointer(words) + position &* header.pointee.stride
        }
    }

    /// Counts the oldest item out and returns its slot, which still holds it (the caller moves it
    /// out). The buffer must not be empty.
    @inlinable
    func slotForPopFirst() -> UnsafeMutableRawPointer {
        withUnsafeMutablePointers { header, words in
            let slot = UnsafeMutableRawPointer(words) + header.pointee.head &* header.pointee.stride
            header.pointee.head = (header.pointee.head &+ 1) & (header.pointee.capacity &- 1)
            header.pointee.count &-= 1
            return slot
        }
    }

    /// Makes the first `count` items from the head the queue's items; the slots past them must
    /// already be uninitialized (moved out).
    @inlinable
    func setCount(_ count: Int) {
        withUnsafeMutablePointerToHeader { $0.pointee.count = count }
    }

    deinit {
        func destroyItems<Element>(of _: Element.Type) {
            for index in 0..<count { slot(at: index).assumingMemoryBound(to: Element.self).deinitialize(count: 1) }
        }
        destroyItems(of: header.elementType)
    }
}

extension RingQueue where Element == any Runnable {
    /// Removes `item` if it is queued; returns whether it was. The items behind it keep their order.
    package mutating func remove(_ item: any Runnable) -> Bool {
        remove(where: { $0 === item })
    }
}
