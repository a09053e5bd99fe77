/// The children of a promise beyond the first: a set of objects keyed by their identity.
///
/// Open addressing with linear probing over a power-of-two table that is at most half full, and
/// backward-shift deletion (no tombstones). An object's address is hashed with one multiplication:
/// a few instructions, where `Dictionary`'s seeded hash costs a few hundred — and every child is
/// inserted once and removed once (W2, a fan-out of 1,000 handlers, spent about 700 instructions
/// per handler in a `Dictionary`). Not thread-safe: the owning promise's gate guards it.
@usableFromInline
struct ChildSet {
    private var slots: ContiguousArray<(any PromiseNode)?>
    /// The number of children in the set.
    private(set) var count = 0

    init() { slots = ContiguousArray(repeating: nil, count: 8) }

    private var mask: Int { slots.count - 1 }

    /// The slot where a search for `id` starts (Fibonacci hashing of the address).
    private func home(of id: ObjectIdentifier) -> Int {
        Int(truncatingIfNeeded: (UInt64(UInt(bitPattern: id)) &* 0x9E37_79B9_7F4A_7C15) >> 32) & mask
    }

    /// The slot holding `id`, or `nil`.
    private func slot(of id: ObjectIdentifier) -> Int? {
        var index = home(of: id)
        while let node = slots[index] {
            if ObjectIdentifier(node) == id { return index }
            index = (index + 1) & mask
        }
        return nil
    }

    /// Adds `child`; adding a child that is already in the set does nothing. One probe: the run
    /// from `child`'s home slot either holds it or ends at the free slot it goes to. (The table
    /// may grow first for a child that turns out to be there already; that is harmless.)
    mutating func insert(_ child: any PromiseNode) {
        if (count + 1) * 2 > slots.count { grow() }
        let id = ObjectIdentifier(child)
        var index = home(of: id)
        while let node = slots[index] {
            if ObjectIdentifier(node) == id { return }
            index = (index + 1) & mask
        }
        slots[index] = child
        count += 1
    }

    /// Removes the child with identity `id`, if it is in the set.
    mutating func remove(_ id: ObjectIdentifier) {
        guard var hole = slot(of: id) else { return }
        slots[hole] = nil
        count -= 1
        // Close the gap: a later node of the same probe run moves back into the hole when the hole
        // lies between its home slot and its current slot.
        var index = (hole + 1) & mask
        while let node = slots[index] {
            let wanted = home(of: ObjectIdentifier(node))
            if (index &- wanted) & mask >= (index &- hole) & mask {
                slots[hole] = node
                slots[index] = nil
                hole = index
            }
            index = (index + 1) & mask
        }
    }

    /// Every child, in no particular order.
    var all: [any PromiseNode] { slots.compactMap { $0 } }

    private mutating func grow() {
        let old = slots
        slots = ContiguousArray(repeating: nil, count: old.count * 2)
        // Every node is known to be absent from the new table: place it, without `insert`'s check.
        for case let node? in old {
            var index = home(of: ObjectIdentifier(node))
            while slots[index] != nil { index = (index + 1) & mask }
            slots[index] = node
        }
    }
}
