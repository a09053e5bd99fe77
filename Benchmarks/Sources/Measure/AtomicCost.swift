import Synchronization

/// `rmw`: what one atomic read-modify-write costs on this machine, uncontended — the unit that
/// `wheretime.py`'s counts of them are multiplied by. The `actorpromise` column adds with an
/// atomic read-modify-write (`lock xadd` on x86); its peer, `plain`, with an atomic load and a
/// store (plain moves), the same dependent chain through one memory word without the lock.
enum AtomicCost {
    static let counter = Atomic<Int>(0)

    static func readModifyWrite(iterations: Int) {
        for _ in 0..<iterations { counter.wrappingAdd(1, ordering: .relaxed) }
    }

    static func loadAndStore(iterations: Int) {
        for _ in 0..<iterations { counter.store(counter.load(ordering: .relaxed) &+ 1, ordering: .relaxed) }
    }
}
