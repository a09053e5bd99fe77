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
            schedulingPoint("gate.park")
            let (exchanged, actual) = word.compareExchange(expected: current, desired: bits | 1, ordering: .releasing)
            if exchanged { return false }
            current = actual
        }
    }

    /// Applies parked operations, leaves the gate, restores the thread's isolation record, and
    /// then carries out what the parked operations decided.
    @inlinable @inline(__always)
    func leave(restoring outer: UnsafeRawPointer?) {
        schedulingPoint("gate.leave")
        if word.compareExchange(expected: 1, desired: 0, ordering: .releasing).exchanged {
            #if DEBUG
            leaveIsolation(restoring: outer)
            #endif
            return
        }
        leaveApplyingParked(restoring: outer)
    }

    @usableFromInline
    func leaveApplyingParked(restoring outer: UnsafeRawPointer?) {
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
            for op in Self.unpark(current & ~1) {
                if let work = op.applyHoldingGate() { deferred.append(work) }
            }
            schedulingPoint("gate.leave.reload")
            current = word.load(ordering: .acquiring)
        }
        #if DEBUG
        leaveIsolation(restoring: outer)
        #endif
        for work in deferred { work() }
    }

    /// Turns a parked chain (most recent first) into operations in arrival order.
    private static func unpark(_ head: UInt) -> [ParkedOp] {
        var ops: [ParkedOp] = []
        var bits = head
        while bits != 0 {
            let node = Unmanaged<ParkedOp>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!).takeRetainedValue()
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

    /// Applies the operation (the gate is held) and returns what to do once it is left.
    func applyHoldingGate() -> (() -> Void)? { nil }
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

    override func applyHoldingGate() -> (() -> Void)? {
        let effects = core.applyHoldingGate(op)
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

    override func applyHoldingGate() -> (() -> Void)? {
        let step = node.applyTreeHoldingGate(op)
        if step == .nothing { return nil }
        return { [node] in node.continueTree(step) }
    }
}

/// A parked job of async code isolated to a state actor.
final class ParkedJob: ParkedOp, @unchecked Sendable {
    let node: any TreeHolder
    let job: UnownedJob

    init(_ node: any TreeHolder, _ job: UnownedJob) {
        self.node = node
        self.job = job
    }

    override func applyHoldingGate() -> (() -> Void)? {
        node.runJobHoldingGate(job)
        return nil
    }
}

/// The parts of a state actor that a parked tree operation or job needs.
protocol TreeHolder: PromiseNode {
    func applyTreeHoldingGate(_ op: TreeOp) -> TreeStep
    func continueTree(_ step: TreeStep)
    func runJobHoldingGate(_ job: UnownedJob)
}

/// A gate entered by a caller that leaves it later, through another call: the thread's isolation
/// record from before the entry, which the leave restores (debug builds keep the record).
@usableFromInline
struct GateEntry {
    @usableFromInline let outer: UnsafeRawPointer?
    @inlinable init(outer: UnsafeRawPointer?) { self.outer = outer }
}
