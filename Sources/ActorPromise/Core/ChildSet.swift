/// The children of a promise beyond the first: a set of objects keyed by their identity.
///
/// Open addressing with linear probing over a power-of-two table that is at most half full, and
/// backward-shift deletion (no tombstones). An object's address is hashed with one multiplication:
/// a few instructions, where `Dictionary`'s seeded hash costs a few hundred — and every child is
/// inserted once and removed once (W2, a fan-out of 1,000 handlers, spent about 700 instructions
/// per handler in a `Dictionary`).
///
/// The slots live in a ``ChildTable``, allocated with the table object. Growing moves each child
/// into the new table, with no retain or release, and frees the old one without visiting its
/// slots again (an array of optionals is copied, and then destroyed one slot at a time through
/// value witnesses: about 300 instructions per handler in W2).
///
/// Not thread-safe: the owning promise's gate guards it. Not meant to be copied either: copies
/// share one table. It lives in one place, the tree state's side object.
@usableFromInline
struct ChildSet {
    private var table: ChildTable

    init() { table = ChildTable.make(slotCount: 8) }

    /// The number of children in the set.
    var count: Int { table.withUnsafeMutablePointerToHeader { $0.pointee.count } }

    /// Adds `child`; adding a child that is already in the set does nothing. One probe: the run
    /// from `child`'s home slot either holds it or ends at the free slot it goes to. (The table
    /// may grow first for a child that turns out to be there already; that is harmless.)
    mutating func insert(_ child: consuming any PromiseNode) {
        let full = table.withUnsafeMutablePointerToHeader { ($0.pointee.count + 1) * 2 > $0.pointee.slotCount }
        if full { grow() }
        table.withUnsafeMutablePointers { header, slots in
            let (index, found) = probe(for: ObjectIdentifier(child), in: slots, mask: header.pointee.slotCount - 1)
            guard !found else { return }
            slots[index] = child
            header.pointee.count += 1
        }
    }

    /// Removes the child with identity `id`, if it is in the set.
    @discardableResult
    mutating func remove(_ id: ObjectIdentifier) -> Bool {
        table.withUnsafeMutablePointers { header, slots in
            let mask = header.pointee.slotCount - 1
            let probed = probe(for: id, in: slots, mask: mask)
            guard probed.found else { return false }
            var hole = probed.index
            slots[hole] = nil
            header.pointee.count -= 1
            // Close the gap: a later node of the same probe run moves back into the hole when the
            // hole lies between its home slot and its current slot.
            var index = (hole + 1) & mask
            while let node = slots[index] {
                let wanted = home(of: ObjectIdentifier(node), mask: mask)
                if (index &- wanted) & mask >= (index &- hole) & mask {
                    (slots + hole).initialize(to: (slots + index).move())
                    (slots + index).initialize(to: nil)
                    hole = index
                }
                index = (index + 1) & mask
            }
            return true
        }
    }

    /// Every child, in no particular order.
    var all: [any PromiseNode] {
        table.withUnsafeMutablePointers { header, slots in
            UnsafeBufferPointer(start: slots, count: header.pointee.slotCount).compactMap { $0 }
        }
    }

    private mutating func grow() {
        let bigger = ChildTable.make(slotCount: table.withUnsafeMutablePointerToHeader { $0.pointee.slotCount } * 2)
        bigger.withUnsafeMutablePointers { newHeader, newSlots in
            let mask = newHeader.pointee.slotCount - 1
            table.withUnsafeMutablePointers { header, slots in
                // Every child is known to be absent from the new table: place it without
                // `insert`'s check. Each slot is moved out, so the old table is left empty.
                for offset in 0..<header.pointee.slotCount {
                    guard let node = (slots + offset).move() else { continue }
                    var index = home(of: ObjectIdentifier(node), mask: mask)
                    while newSlots[index] != nil { index = (index + 1) & mask }
                    (newSlots + index).pointee = node
                }
                newHeader.pointee.count = header.pointee.count
                header.pointee = ChildTable.Header(count: 0, slotCount: 0)
            }
        }
        table = bigger
    }
}

/// Follows the probe run of `id`: the slot holding it (`found`), or the free slot that ends the
/// run, where it would go.
@inline(__always)
private func probe(
    for id: ObjectIdentifier, in slots: UnsafeMutablePointer<(any PromiseNode)?>, mask: Int
) -> (index: Int, found: Bool) {
    var index = home(of: id, mask: mask)
    while let node = slots[index] {
        if ObjectIdentifier(node) == id { return (index, true) }
        index = (index + 1) & mask
    }
    return (index, false)
}

/// The slot where a search for `id` starts (Fibonacci hashing of the address).
@inline(__always)
private func home(of id: ObjectIdentifier, mask: Int) -> Int {
    Int(truncatingIfNeeded: (UInt64(UInt(bitPattern: id)) &* 0x9E37_79B9_7F4A_7C15) >> 32) & mask
}

/// The slots of a ``ChildSet``, allocated in one block with their count. Its header's
/// `slotCount` says how many slots are initialized (`nil` or a child); a table whose children
/// were moved to a bigger one has none. The header is only reached through pointers:
/// `ManagedBuffer.header` is a stored class property, so each use of it pays a dynamic
/// exclusivity check.
final class ChildTable: ManagedBuffer<ChildTable.Header, (any PromiseNode)?> {
    struct Header {
        var count: Int
        var slotCount: Int
    }

    /// A table of `slotCount` empty slots (a power of two).
    static func make(slotCount: Int) -> ChildTable {
        let buffer = create(minimumCapacity: slotCount) { _ in Header(count: 0, slotCount: slotCount) }
        let table = unsafeDowncast(buffer, to: ChildTable.self)
        table.withUnsafeMutablePointerToElements { $0.initialize(repeating: nil, count: slotCount) }
        return table
    }

    /// Releases the children still in the table. An empty table (the usual case: a promise frees
    /// its set once its last child is done) holds only `nil`s, which need no destroying.
    deinit {
        withUnsafeMutablePointers { header, slots in
            guard header.pointee.count > 0 else { return }
            for offset in 0..<header.pointee.slotCount where slots[offset] != nil {
                (slots + offset).deinitialize(count: 1)
            }
        }
    }
}
