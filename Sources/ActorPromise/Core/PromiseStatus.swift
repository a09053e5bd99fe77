import Synchronization

// MARK: - What other threads may read: the published status, and the flags it is cut from


/// What any thread may learn about a promise without its gate: the snapshot a transition
/// publishes in `PromiseCore.status` (release), read with an acquiring load.
@usableFromInline
struct PromiseStatus: OptionSet, AtomicRepresentable, Sendable {
    @usableFromInline let rawValue: UInt8

    @inlinable init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Pending. (An empty array literal would call an initializer the optimizer leaves outlined.)
    @inlinable static var none: PromiseStatus { PromiseStatus(rawValue: 0) }
    /// Fulfilled or rejected (cancellation included).
    @inlinable static var settled: PromiseStatus { PromiseStatus(rawValue: 1) }
    /// Rejected by cancellation.
    @inlinable static var cancelled: PromiseStatus { PromiseStatus(rawValue: 2) }
    /// Cancelled while it was pending. Final: such a promise never changes again, so a thread
    /// may act on it without the gate.
    @inlinable static var cancelledWhilePending: PromiseStatus { PromiseStatus(rawValue: 4) }
    /// Cancelled while pending, after the promise it derives from had settled: its handler, if it
    /// observes outcomes, reports that settled outcome, not the later cancel (R1, B5). Final.
    @inlinable static var cancelledAfterSource: PromiseStatus { PromiseStatus(rawValue: 64) }
    /// Pending and following another promise (adoption): a hint for collapsing chains of
    /// adoptions, which check the adoptee itself under ``adoptionLock``.
    @inlinable static var following: PromiseStatus { PromiseStatus(rawValue: 128) }
    // Set when the promise is made, and published here so that the state actor needs no field
    // of its own for them: they are read without the gate.
    @inlinable static var tracksInterest: PromiseStatus { PromiseStatus(rawValue: 8) }
    @inlinable static var observesCancellation: PromiseStatus { PromiseStatus(rawValue: 16) }
    /// Also set when the promise starts following another, which it observes inline; read by
    /// that promise when this one registers with it, after the follow is applied.
    @inlinable static var runsInline: PromiseStatus { PromiseStatus(rawValue: 32) }

    /// This status, with `other` added when `condition` holds.
    @inlinable func adding(_ other: PromiseStatus, if condition: Bool) -> PromiseStatus {
        condition ? PromiseStatus(rawValue: rawValue | other.rawValue) : self
    }
}

/// The flags of the tree half, in one byte (see ``TreeState/flags``). The first five sit at
/// ``PromiseStatus``'s bit positions, so that the status is a mask of this byte and of
/// ``MachineFlags``; `StateMachineTests` checks that they match.
@usableFromInline
struct TreeFlags: OptionSet, Sendable {
    @usableFromInline var rawValue: UInt8

    @inlinable init(rawValue: UInt8) { self.rawValue = rawValue }

    @inlinable static var settled: TreeFlags { TreeFlags(rawValue: PromiseStatus.settled.rawValue) }
    @inlinable static var cancelled: TreeFlags { TreeFlags(rawValue: PromiseStatus.cancelled.rawValue) }
    /// The promise cancels itself once every dependent was cancelled (R7). Fixed at creation.
    @inlinable static var tracksInterest: TreeFlags { TreeFlags(rawValue: PromiseStatus.tracksInterest.rawValue) }
    @inlinable static var observesCancellation: TreeFlags { TreeFlags(rawValue: PromiseStatus.observesCancellation.rawValue) }
    /// The promise, as an observer, runs on `.inline`: set at creation for a derived promise whose
    /// handler runs there, and when the promise starts following another, which it observes inline.
    @inlinable static var runsInline: TreeFlags { TreeFlags(rawValue: PromiseStatus.runsInline.rawValue) }
    /// The promise is in the pending registry, which its `deinit` leaves (debug builds, and release
    /// builds while ``PromiseDiagnostics/tracksPending`` is on). Fixed at creation.
    @inlinable static var pendingTracked: TreeFlags { TreeFlags(rawValue: 4) }
    /// What a released promise reports: the registry left, or a rejection nobody took (R14).
    @inlinable static var reportedOnRelease: TreeFlags { TreeFlags(rawValue: 4 | 128) }
    /// Settled, and no child pending: reported to the parent, which then lets go of this node.
    @inlinable static var done: TreeFlags { TreeFlags(rawValue: 64) }
    /// The outcome is a rejection: `deinit` looks for an unhandled one here (R14). Kept in
    /// non-generic state because `deinit` runs unspecialized, where even an atomic load pays a
    /// run-time conformance look-up.
    @inlinable static var rejected: TreeFlags { TreeFlags(rawValue: 128) }
    /// The flags the state actor publishes in its status.
    @inlinable static var published: TreeFlags { TreeFlags(rawValue: 1 | 2 | 8 | 16 | 32) }
}

/// The flags of the value half, in one byte with its hook (see ``PromiseStateMachine/flags``);
/// three sit at ``PromiseStatus``'s bit positions and are published as they are.
@usableFromInline
struct MachineFlags: OptionSet, Sendable {
    @usableFromInline var rawValue: UInt8

    @inlinable init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Bits 0–1 hold the hook (``PromiseStateMachine/Hook``), not flags.
    @inlinable static var hookBits: UInt8 { 3 }
    /// A cancellation found the promise pending (R6).
    @inlinable static var cancelledWhilePending: MachineFlags { MachineFlags(rawValue: PromiseStatus.cancelledWhilePending.rawValue) }
    /// A delivery of observers on non-inline contexts is under way (R2): observers registered
    /// after settlement wait in `observers` until it ends.
    @inlinable static var delivering: MachineFlags { MachineFlags(rawValue: 8) }
    /// An observer waiting for the outcome runs on a context other than `.inline`: settling then
    /// starts an ordered delivery (R2).
    @inlinable static var orderedObserver: MachineFlags { MachineFlags(rawValue: 16) }
    /// The cancellation that found the promise pending came after the promise it derives from
    /// had settled (see ``PromiseStatus/cancelledAfterSource``).
    @inlinable static var cancelledAfterSource: MachineFlags { MachineFlags(rawValue: PromiseStatus.cancelledAfterSource.rawValue) }
    /// Pending and following another promise (see ``PromiseStatus/following``).
    @inlinable static var following: MachineFlags { MachineFlags(rawValue: PromiseStatus.following.rawValue) }
    /// The flags published in the status, at its bit positions.
    @inlinable static var published: MachineFlags {
        MachineFlags(rawValue: PromiseStatus.cancelledWhilePending.rawValue | PromiseStatus.cancelledAfterSource.rawValue
            | PromiseStatus.following.rawValue)
    }
}

extension OptionSet where Element == Self {
    /// Whether `flag` is set; setting it to `true` or `false` inserts or removes it. The one
    /// accessor of every flag of ``TreeFlags`` and ``MachineFlags``, and of the work a
    /// transition's effects ask for (``PromiseEffects/Work``).
    @inlinable
    subscript(flag: Self) -> Bool {
        get { contains(flag) }
        set {
            if newValue { insert(flag) } else { remove(flag) }
        }
    }
}
