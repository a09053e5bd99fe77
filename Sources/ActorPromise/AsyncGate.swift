import Synchronization

/// A non-blocking mutual-exclusion gate: the "asynchronous mutex" behind each state actor.
///
/// A thread that finds the gate free enters and runs its operation at once, on its own stack.
/// A thread that finds it taken does not wait: it parks its operation on a lock-free stack inside
/// the gate word and returns; the thread inside applies parked operations before it leaves.
/// Nobody ever blocks, and every operation runs with exclusive access to the state.
///
/// The word is `0` when free, `1` when taken with nothing parked, and `pointer | 1` when taken
/// with parked operations (objects are 16-byte aligned, so the low bit is free).
struct AsyncGate: ~Copyable {
    private let word = Atomic<UInt>(0)

    init() {}

    /// Enters if the gate is free.
    @inline(__always)
    func tryEnter() -> Bool {
        word.compareExchange(expected: 0, desired: 1, ordering: .acquiring).exchanged
    }

    /// Enters if the gate is free, or else parks `node` for the thread inside.
    ///
    /// - Returns: `true` if the caller entered (and must apply its operation itself); `false` if
    ///   the operation was parked, in which case the gate owns the retained `node`.
    func enterOrPark<Node: AnyObject>(_ node: Node, link: (Node, UInt) -> Void) -> Bool {
        let bits = UInt(bitPattern: Unmanaged.passRetained(node).toOpaque())
        var current = word.load(ordering: .relaxed)
        while true {
            if current == 0 {
                let (exchanged, actual) = word.compareExchange(expected: 0, desired: 1, ordering: .acquiring)
                if exchanged {
                    Unmanaged<Node>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!).release()
                    return true
                }
                current = actual
                continue
            }
            link(node, current & ~1)
            let (exchanged, actual) = word.compareExchange(expected: current, desired: bits | 1, ordering: .releasing)
            if exchanged { return false }
            current = actual
        }
    }

    /// Leaves the gate if nothing is parked. Otherwise stays inside and returns the parked chain
    /// (most recent first) for the caller to apply before trying to leave again.
    @inline(__always)
    func leaveOrTakeParked() -> UInt? {
        if word.compareExchange(expected: 1, desired: 0, ordering: .releasing).exchanged { return nil }
        return takeParked()
    }

    @inline(never)
    private func takeParked() -> UInt? {
        var current = word.load(ordering: .acquiring)
        while true {
            if current == 1 {
                let (exchanged, actual) = word.compareExchange(expected: 1, desired: 0, ordering: .releasing)
                if exchanged { return nil }
                current = actual
                continue
            }
            let (exchanged, actual) = word.compareExchange(expected: current, desired: 1, ordering: .acquiringAndReleasing)
            if exchanged { return current & ~1 }
            current = actual
        }
    }
}

/// An operation parked on a gate, linked to the one parked before it.
final class ParkedOp<Value: Sendable>: @unchecked Sendable {
    // Safety: `next` is written once, before the node is published by the gate's releasing
    // compare-exchange, and read only by the thread that took the chain with an acquiring one.
    let op: PromiseOp<Value>
    var next: UInt = 0

    init(_ op: PromiseOp<Value>) { self.op = op }
}
