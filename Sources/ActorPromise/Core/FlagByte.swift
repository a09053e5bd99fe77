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
