import Synchronization

// What other threads may read of a promise without its gate, and the tree protocol's
// requirements that need no state.

extension StateActor {
    @inlinable nonisolated var isSettled: Bool {
        schedulingPoint("status.settled")
        return status.load(ordering: .acquiring).contains(.settled)
    }
    /// Whether the promise cancels itself once every dependent was cancelled (R7, B7). Fixed at
    /// creation; derived promises take it from their parent.
    @inlinable nonisolated var tracksInterest: Bool { status.load(ordering: .relaxed).contains(.tracksInterest) }
    /// Whether this derived promise's handler observes errors, and so runs even when the promise
    /// was cancelled while it waited (R5b); a value handler is skipped then. Fixed at creation.
    @inlinable nonisolated var observesCancellation: Bool {
        status.load(ordering: .relaxed).contains(.observesCancellation)
    }
    /// Whether this derived promise's handler runs on `.inline` (R2: such handlers take no part
    /// in ordered delivery). Fixed at creation.
    @inlinable nonisolated var runsInline: Bool { status.load(ordering: .relaxed).contains(.runsInline) }
    @usableFromInline nonisolated var isPending: Bool { !isSettled }
    @usableFromInline nonisolated var isCancelled: Bool {
        schedulingPoint("status.cancelled")
        return status.load(ordering: .acquiring).contains(.cancelled)
    }
    /// Whether the promise was cancelled while pending. Final once true, so safe to act on
    /// without the gate.
    @usableFromInline nonisolated var wasCancelledWhilePending: Bool {
        schedulingPoint("status.cancelledWhilePending")
        return status.load(ordering: .acquiring).contains(.cancelledWhilePending)
    }
    @usableFromInline nonisolated var parentNode: (any PromiseNode)? { parent }
    @usableFromInline
    nonisolated var anyOutcome: Outcome<any Sendable>? {
        typed.settledOutcome.map { $0.map { $0 as any Sendable } }
    }

    /// Ends a delivery of observers (R2); see ``endDeliveryNow()``.
    @inlinable
    nonisolated func endDelivery() { typed.endDeliveryNow() }

    /// Cancels this promise as one step of a cancel walk (see `forwardCancel`).
    @usableFromInline
    nonisolated func cancel(
        reason: (any Error)?, origin: TraceCause?, forwardingInto work: inout [any PromiseNode], then effects: inout [() -> Void]
    ) {
        typed.cancelStep(reason: reason, origin: origin, forwardingInto: &work, then: &effects)
    }
}

