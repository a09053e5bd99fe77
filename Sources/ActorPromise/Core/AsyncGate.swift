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
@usableFromInline
struct AsyncGate: ~Copyable, Sendable {
    @usableFromInline let word = Atomic<UInt>(0)

    @inlinable init() {}

    /// Enters if the gate is free.
    @inlinable @inline(__always)
    func tryEnter() -> Bool {
        schedulingPoint("gate.tryEnter")
        return word.compareExchange(expected: 0, desired: 1, ordering: .acquiring).exchanged
    }

    /// Enters if the gate is free, or else parks `node` for the thread inside.
    ///
    /// - Returns: `true` if the caller entered (and must apply its operation itself); `false` if
    ///   the operation was parked, to be applied by the thread inside.
    @usableFromInline
    func enterOrPark(_ node: ParkedOp) -> Bool {
        let bits = UInt(bitPattern: Unmanaged.passRetained(node).toOpaque())
        schedulingPoint("gate.park.load")
        var current = word.load(ordering: .relaxed)
        while true {
            if current == 0 {
                schedulingPoint("gate.park.enter")
                let (exchanged, actual) = word.compareExchange(expected: 0, desired: 1, ordering: .acquiring)
                if exchanged {
                    Unmanaged<ParkedOp>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!).release()
                    return true
                }
                current = actual
                continue
            }
            node.next = current & ~1
            modelledAccess(node, "next", writes: true)
            schedulingPoint("gate.park")
            let (exchanged, actual) = word.compareExchange(expected: current, desired: bits | 1, ordering: .releasing)
            if exchanged { return false }
            current = actual
        }
    }

    /// Applies parked operations, leaves the gate, and then carries out what the parked
    /// operations decided.
    @inlinable @inline(__always)
    func leave() {
        schedulingPoint("gate.leave")
        if word.compareExchange(expected: 1, desired: 0, ordering: .releasing).exchanged { return }
        leaveApplyingParked()
    }

    @usableFromInline
    func leaveApplyingParked() {
        var deferred: [() -> Void] = []
        schedulingPoint("gate.leave.load")
        var current = word.load(ordering: .acquiring)
        while true {
            if current == 1 {
                schedulingPoint("gate.leave.retry")
                let (exchanged, actual) = word.compareExchange(expected: 1, desired: 0, ordering: .releasing)
                if exchanged { break }
                current = actual
                continue
            }
            schedulingPoint("gate.unpark")
            let (exchanged, actual) = word.compareExchange(expected: current, desired: 1, ordering: .acquiringAndReleasing)
            guard exchanged else {
                current = actual
                continue
            }
            let held = GateHeld()
            for op in Self.unpark(current & ~1) {
                if let work = op.apply(holding: held) { deferred.append(work) }
            }
            schedulingPoint("gate.leave.reload")
            current = word.load(ordering: .acquiring)
        }
        for work in deferred { work() }
    }

    /// Turns a parked chain (most recent first) into operations in arrival order.
    private static func unpark(_ head: UInt) -> [ParkedOp] {
        var ops: [ParkedOp] = []
        var bits = head
        while bits != 0 {
            let node = Unmanaged<ParkedOp>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!).takeRetainedValue()
            modelledAccess(node, "next", writes: false)
            ops.append(node)
            bits = node.next
        }
        ops.reverse()
        return ops
    }
}

/// An operation parked on a gate, linked to the one parked before it.
@usableFromInline
class ParkedOp: @unchecked Sendable {
    // Safety: `next` is written once, before the node is published by the gate's releasing
    // compare-exchange, and read only by the thread that took the chain with an acquiring one.
    @usableFromInline var next: UInt = 0

    @usableFromInline init() {}

    /// Applies the operation, with the gate held by the thread leaving it (`held`), and returns
    /// what to do once the gate is left.
    func apply(holding held: borrowing GateHeld) -> (() -> Void)? { nil }
}

/// A parked value operation.
@usableFromInline
final class ParkedValueOp<Value: Sendable>: ParkedOp, @unchecked Sendable {
    let core: PromiseCore<Value>
    let op: PromiseOp<Value>

    @usableFromInline
    init(_ core: PromiseCore<Value>, _ op: PromiseOp<Value>) {
        self.core = core
        self.op = op
    }

    override func apply(holding held: borrowing GateHeld) -> (() -> Void)? {
        let effects = core.applyParked(op, holding: held)
        return { [core] in core.carryOut(effects) }
    }
}

/// A parked tree operation.
final class ParkedTreeOp: ParkedOp, @unchecked Sendable {
    let node: any TreeHolder
    let op: TreeOp

    init(_ node: any TreeHolder, _ op: TreeOp) {
        self.node = node
        self.op = op
    }

    override func apply(holding held: borrowing GateHeld) -> (() -> Void)? {
        let step = node.applyParked(op, holding: held)
        if step == .nothing { return nil }
        return { [node] in node.continueTree(step) }
    }
}

/// The parts of a state actor that a parked tree operation needs.
protocol TreeHolder: PromiseNode {
    /// Applies `op`, parked on this promise's gate, which `held` proves this thread holds.
    func applyParked(_ op: TreeOp, holding held: borrowing GateHeld) -> TreeStep
    /// Does what a parked tree operation left to do, once the gate is left.
    func continueTree(_ step: TreeStep)
}

/// Proof that this thread holds a gate while it applies the operations parked on it: made only
/// here, by the thread leaving the gate, and lent to each operation for the time it is applied.
/// (The other way into a promise's state is entering its gate, which only `PromiseCore.swift`
/// does; see ``StateActor``.)
struct GateHeld: ~Copyable {
    fileprivate init() {}
}
