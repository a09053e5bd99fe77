import Synchronization

/// The state of one promise, isolated to an actor.
///
/// The actor is its own serial executor, and that executor is an ``AsyncGate``: synchronous entry
/// points (`then`, `fulfill`, `cancel`, …) enter the gate on the calling thread, mutate the state
/// under the actor's isolation, and leave — no `Task`, no thread hop. A call that finds the gate
/// taken parks its operation for the thread inside. `checkIsolated` answers from a thread-local
/// record of which actor's gate this thread holds (never from thread identity), so isolation
/// checks are exact. Observers are called only after the gate is left.
actor PromiseCore<Value: Sendable>: SerialExecutor, PromiseNode {
    /// The state machine. Exclusive access is guaranteed by the gate (the actor's executor), so
    /// the dynamic exclusivity check is redundant and switched off.
    @exclusivity(unchecked) private var machine: PromiseStateMachine<Value>
    private nonisolated let gate = AsyncGate()
    /// Bit 0: settled; bit 1: cancelled. Written under the gate, read without it for snapshots.
    private nonisolated let flags = Atomic<UInt8>(0)
    /// The parent, for `parent`/`root` and for reports up the tree. A `var` only so that `deinit`
    /// can move it out and release long chains without recursion.
    private nonisolated(unsafe) var parent: (any PromiseNode)?

    init(_ machine: PromiseStateMachine<Value>, parent: (any PromiseNode)? = nil) {
        self.machine = machine
        self.parent = parent
        if machine.outcome != nil { flags.store(1, ordering: .relaxed) }
    }

    deinit {
        guard parent != nil else { return }
        var slot: AnyObject? = parent.take()
        ThreadState.current.bury(&slot)
    }

    // MARK: Executor

    nonisolated var unownedExecutor: UnownedSerialExecutor { asUnownedSerialExecutor() }

    /// Jobs of async code isolated to this actor run on the global pool, each inside the gate.
    nonisolated func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        WorkerPool.global.submit(ClosureWorkItem { [self] in self.send(.job(job)) })
    }

    private nonisolated var identity: UnsafeRawPointer { UnsafeRawPointer(Unmanaged.passUnretained(self).toOpaque()) }

    nonisolated func isIsolatingCurrentContext() -> Bool? {
        ThreadState.current.isolation == identity
    }

    nonisolated func checkIsolated() {
        precondition(ThreadState.current.isolation == identity, "not isolated to this promise's state actor")
    }

    // MARK: Applying operations

    private static func apply(_ core: isolated PromiseCore, _ op: PromiseOp<Value>) -> PromiseEffects<Value> {
        let effects = core.machine.apply(op)
        if effects.outcome != nil || effects.cancelReason != nil || op.isCancel {
            var bits: UInt8 = core.machine.outcome == nil ? 0 : 1
            if core.machine.isCancelled { bits |= 2 }
            core.flags.store(bits, ordering: .releasing)
        }
        if let job = effects.job {
            job.runSynchronously(on: core.asUnownedSerialExecutor())
        }
        return effects
    }

    /// Applies `op` with the actor's isolation. Only called with the gate held.
    @inline(__always)
    private nonisolated func applyIsolated(_ op: PromiseOp<Value>) -> PromiseEffects<Value> {
        #if DEBUG
        // The checked path: the runtime asks `isIsolatingCurrentContext`, which must say yes.
        return assumeIsolated { core in PromiseCore.apply(core, op) }
        #else
        // The gate guarantees the isolation `assumeIsolated` would check; skip the runtime query.
        let isolatedApply: (isolated PromiseCore, PromiseOp<Value>) -> PromiseEffects<Value> = PromiseCore.apply
        return unsafeBitCast(isolatedApply, to: ((PromiseCore, PromiseOp<Value>) -> PromiseEffects<Value>).self)(self, op)
        #endif
    }

    /// Applies `op` now if the gate is free, or parks it for the thread inside.
    ///
    /// - Returns: The effects of `op` when it was applied now (the caller carries them out);
    ///   `nil` when it was parked (the thread inside carries them out).
    @inline(__always)
    nonisolated func perform(_ op: PromiseOp<Value>) -> PromiseEffects<Value>? {
        if gate.tryEnter() { return applyAndLeave(op) }
        return performContended(op)
    }

    @inline(never)
    private nonisolated func performContended(_ op: PromiseOp<Value>) -> PromiseEffects<Value>? {
        let node = ParkedOp(op)
        if gate.enterOrPark(node, link: { $0.next = $1 }) { return applyAndLeave(op) }
        return nil
    }

    private nonisolated func applyAndLeave(_ op: PromiseOp<Value>) -> PromiseEffects<Value> {
        let thread = ThreadState.current
        let outer = thread.isolation
        thread.isolation = identity
        let effects = applyIsolated(op)
        var parkedEffects: [PromiseEffects<Value>] = []
        while let chain = gate.leaveOrTakeParked() {
            for parked in Self.unpark(chain) { parkedEffects.append(applyIsolated(parked)) }
        }
        thread.isolation = outer
        for parked in parkedEffects { carryOut(parked) }
        return effects
    }

    /// Turns a parked chain (most recent first) into operations in arrival order.
    private static func unpark(_ head: UInt) -> [PromiseOp<Value>] {
        var ops: [PromiseOp<Value>] = []
        var bits = head
        while bits != 0 {
            let node = Unmanaged<ParkedOp<Value>>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!).takeRetainedValue()
            ops.append(node.op)
            bits = node.next
        }
        ops.reverse()
        return ops
    }

    /// Applies `op` and carries out its effects.
    @inline(__always)
    nonisolated func send(_ op: PromiseOp<Value>) {
        if let effects = perform(op) { carryOut(effects) }
    }

    // MARK: Snapshots

    nonisolated var isSettled: Bool { flags.load(ordering: .acquiring) & 1 != 0 }
    nonisolated var isPending: Bool { !isSettled }
    nonisolated var isCancelled: Bool { flags.load(ordering: .acquiring) & 2 != 0 }
    nonisolated var parentNode: (any PromiseNode)? { parent }

    /// The outcome, once settled. Safe without the gate: the outcome is written once, before the
    /// settled bit is published with release ordering, and never changes afterwards.
    nonisolated var settledOutcome: Outcome<Value>? {
        guard isSettled else { return nil }
        let read: (isolated PromiseCore) -> Outcome<Value>? = { $0.machine.outcome }
        return unsafeBitCast(read, to: ((PromiseCore) -> Outcome<Value>?).self)(self)
    }

    nonisolated var anyOutcome: Outcome<any Sendable>? {
        settledOutcome.map { $0.map { $0 as any Sendable } }
    }
}

extension PromiseOp {
    var isCancel: Bool { if case .cancel = self { true } else { false } }
}
