/// Where each promise of a snapshot is in its list, by the promise's address: an open-addressing
/// table of addresses and positions side by side, so that a look-up in a snapshot of a million
/// promises touches one slot (a `Dictionary` keeps keys and values apart and hashes with SipHash).
struct PendingIndex: Sendable {
    /// Pairs of address and position; address 0 marks an empty slot.
    private var slots: [(address: UInt, position: Int32)]
    private let mask: Int

    init(_ promises: [PendingPromise]) {
        var capacity = 16
        while capacity < promises.count * 2 { capacity *= 2 }
        slots = Array(repeating: (0, 0), count: capacity)
        mask = capacity - 1
        for position in promises.indices {
            let address = Self.address(promises[position].id)
            var slot = Self.hash(address) & mask
            while slots[slot].address != 0 && slots[slot].address != address { slot = (slot + 1) & mask }
            slots[slot] = (address, Int32(position))
        }
    }

    /// The position of the promise `id`, or `nil` if the snapshot did not find it.
    subscript(id: ObjectIdentifier) -> Int? {
        let address = Self.address(id)
        var slot = Self.hash(address) & mask
        while slots[slot].address != 0 {
            if slots[slot].address == address { return Int(slots[slot].position) }
            slot = (slot + 1) & mask
        }
        return nil
    }

    private static func address(_ id: ObjectIdentifier) -> UInt { UInt(bitPattern: id) }

    /// Fibonacci hashing of an address without its alignment bits.
    private static func hash(_ address: UInt) -> Int {
        Int(truncatingIfNeeded: ((address >> 4) &* 0x9E37_79B9_7F4A_7C15) >> 24)
    }
}
