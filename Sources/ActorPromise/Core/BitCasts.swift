/// Values read as other types, bit for bit: a closure kept without its type, an error's identity,
/// two values compared by their bytes. Each says beside it why the bits mean what its reader
/// takes them to mean.

/// A closure kept without its type, so that a promise can hold a handler whose type mentions its
/// parent's value type.
///
/// Built from, and read back as, a struct whose one stored property is the closure, declared with
/// exactly the type of the operator's parameter (``ThenBody`` and its siblings): stored that way,
/// the closure needs no reabstraction thunk (which would allocate) and its representation does not
/// depend on where the code is specialized. Safety: such a struct is a thick function, two words
/// (code pointer, retained context or `nil`); this type has the same two words, with the context
/// as a reference, so copying and releasing it copies and releases the closure's context. It is
/// read back only as the type it was made from (the runner that made it).
@usableFromInline
struct ErasedClosure {
    @usableFromInline let code: UnsafeRawPointer
    @usableFromInline let context: AnyObject?

    @inlinable
    init<Body>(_ body: Body) {
        assert(MemoryLayout<Body>.size == MemoryLayout<ErasedClosure>.size, "not a closure: \(Body.self)")
        self = unsafeBitCast(body, to: ErasedClosure.self)
    }

    @inlinable
    func load<Body>(as type: Body.Type) -> Body { unsafeBitCast(self, to: Body.self) }

    /// Moves the closure out of `slot` as the `Body` it was made from, and leaves `nil` there: it
    /// changes hands without a retain or a release. Safety: a non-`nil` optional of this type has
    /// its two words, which `Body`'s are; the slot is emptied at once, so the closure is neither
    /// released twice nor leaked.
    @inlinable @inline(__always)
    static func take<Body>(from slot: inout ErasedClosure?, as _: Body.Type) -> Body {
        withUnsafeMutablePointer(to: &slot) { slot in
            let moved = slot.withMemoryRebound(to: Body.self, capacity: 1) { $0.move() }
            slot.initialize(to: nil)
            return moved
        }
    }
}

/// Whether `a` and `b` have the same bits: for any type, a sufficient test of equality (equal
/// values with different bits compare unequal here). Closures that capture pointers only: callers
/// run it unspecialized, where a closure capturing a generic value would look up its type's
/// metadata.
@inline(__always)
func haveSameBits<T>(_ a: inout T, _ b: inout T) -> Bool {
    withUnsafePointer(to: &a) { a in
        withUnsafePointer(to: &b) { memcmp(a, $0, MemoryLayout<T>.size) == 0 }
    }
}

/// The identity of an error value as it travels: an `any Error` is one reference to a box that
/// every copy shares, so a promise that passes its parent's rejection on holds the same box, and
/// an error a handler throws is a new one.
@usableFromInline
struct ErrorIdentity: Equatable, Sendable {
    let bits: UInt

    @usableFromInline
    init(_ error: any Error) {
        // Safety: an `any Error` existential is a single reference on every platform Swift runs
        // on; only its bits are read, to compare, never followed. (`as any Error` keeps the
        // existential closed: opened, the cast would see the concrete error's size.)
        bits = unsafeBitCast(error as any Error, to: UInt.self)
    }
}

