/// The children of a promise beyond the first: a dense list in which every child knows its slot.
///
/// Each child records where it sits (``PromiseNode/slotInParent``), so finding it again is one
/// read and one identity check, with no hashing and no probing: a removal moves the last child
/// into the freed slot and tells it its new place. A hash set would pay for probing, deletion
/// and rehashing on growth, with cache misses across a table twice the size of the set, on
/// every child of a fan-out.
///
/// A slot is a hint that only this set's owner writes and reads, with its gate held: a child is a
/// child of one promise (its parent) and sits in no other promise's set. A stale hint — a child
/// that was removed and comes back, or one that was never here — is caught by the identity check.
///
/// The slots live in a ``ChildTable``, allocated with its count. Growing moves each child into
/// the new table without a retain or a release.
///
/// Not thread-safe: the owning promise's gate guards it. Not meant to be copied either: copies
/// share one table. It lives in one place, the tree state's side object.
@usableFromInline
struct ChildSet {
    private var table: ChildTable

    init() { table = ChildTable.make(capacity: 8) }

    /// The number of children in the set.
    var count: Int { table.withUnsafeMutablePointerToHeader { $0.pointee.count } }

    /// Adds `child`; adding a child that is already in the set does nothing.
    mutating func insert(_ child: consuming any PromiseNode) {
        if contains(child) { return }
        if table.withUnsafeMutablePointerToHeader({ $0.pointee.count == $0.pointee.capacity }) { grow() }
        // A consumed parameter cannot be captured: the child moves into its slot through a local.
        var incoming = Optional(child)
        table.withUnsafeMutablePointers { header, slots in
            let index = header.pointee.count
            let node = incoming.take()!
            node.slotInParent = UInt32(truncatingIfNeeded: index)
            (slots + index).initialize(to: node)
            header.pointee.count = index + 1
        }
    }

    /// Removes `child`, if it is in the set; returns whether it was. The last child takes its slot.
    @discardableResult
    mutating func remove(_ child: borrowing any PromiseNode) -> Bool {
        guard let index = slot(of: child) else { return false }
        let removed = table.withUnsafeMutablePointers { header, slots in
            let last = header.pointee.count - 1
            header.pointee.count = last
            let removed = (slots + index).move()
            if index != last {
                let moved = (slots + last).move()
                moved.slotInParent = UInt32(truncatingIfNeeded: index)
                (slots + index).initialize(to: moved)
            }
            return removed
        }
        _ = consume removed
        return true
    }

    /// Whether `child` is in the set.
    func contains(_ child: borrowing any PromiseNode) -> Bool { slot(of: child) != nil }

    /// Every child, in no particular order.
    var all: [any PromiseNode] {
        table.withUnsafeMutablePointers { header, slots in
            Array(UnsafeBufferPointer(start: slots, count: header.pointee.count))
        }
    }

    /// Where `child` is, if its hint points at it.
    private func slot(of child: borrowing any PromiseNode) -> Int? {
        let index = Int(child.slotInParent)
        return table.withUnsafeMutablePointers { header, slots in
            index < header.pointee.count && slots[index] === child ? index : nil
        }
    }

    private mutating func grow() {
        let bigger = ChildTable.make(capacity: table.withUnsafeMutablePointerToHeader { $0.pointee.capacity } * 2)
        bigger.withUnsafeMutablePointers { newHeader, newSlots in
            table.withUnsafeMutablePointers { header, slots in
                // Moved, slot for slot: the old table is left empty, and no slot changes.
                newSlots.moveInitialize(from: slots, count: header.pointee.count)
                newHeader.pointee.count = header.pointee.count
                header.pointee.count = 0
            }
        }
        table = bigger
    }
}

/// The slots of a ``ChildSet``, allocated in one block with their count: the first `count` are
/// children, the rest uninitialized. The header is only reached through pointers:
/// `ManagedBuffer.header` is a stored class property, so each use of it pays a dynamic
/// exclusivity check.
final class ChildTable: ManagedBuffer<ChildTable.Header, any PromiseNode> {
    struct Header {
        var count: Int
        var capacity: Int
    }

    /// An empty table with room for `capacity` children.
    static func make(capacity: Int) -> ChildTable {
        let buffer = create(minimumCapacity: capacity) { _ in Header(count: 0, capacity: capacity) }
        return unsafeDowncast(buffer, to: ChildTable.self)
    }

    /// Releases the children still in the table (none in the usual case: a promise frees its set
    /// once its last child is done).
    deinit {
        withUnsafeMutablePointers { header, slots in
            _ = slots.deinitialize(count: header.pointee.count)
        }
    }
}
