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

/// A few `Bool`s of a promise's state packed into one byte, each flag a bit mask: the tree state
/// and the state machine each keep one, so that the state actor stays within one malloc size class.
@usableFromInline
struct FlagByte: Sendable {
    @usableFromInline var bits: UInt8

    @inlinable init(_ bits: UInt8) { self.bits = bits }

    /// Whether any bit of `flag` is set.
    @inlinable func contains(_ flag: UInt8) -> Bool { bits & flag != 0 }

    /// Sets or clears the bits of `flag`.
    @inlinable
    mutating func set(_ flag: UInt8, to on: Bool) {
        bits = on ? bits | flag : bits & ~flag
    }
}
