/// A reference that does not keep its object alive: using it costs no retain and no release, and
/// holding it adds nothing to the object's reference count.
///
/// The core uses it where a reference of its own would cost a retain and a release on a hot path
/// (a handler reading its parent), or would be counted by a walk that asks whether anything else
/// still holds an object (the collapse of a chain of adoptions).
///
/// Safety: whoever makes one guarantees that something else holds the object for as long as any
/// copy of this value is used, and names that holder in a comment where it is made. ``with(_:)``
/// lends the object for the length of its body only; ``object`` returns a strong reference, which
/// is safe for the same reason and then lives as long as any other.
@usableFromInline @frozen
struct Unretained<Object: AnyObject> {
    @usableFromInline let reference: Unmanaged<Object>

    /// Borrows `object`; the caller names what keeps it alive.
    @inlinable @inline(__always)
    init(_ object: Object) { reference = .passUnretained(object) }

    /// Calls `body` with the object, which it may use but not keep past the call. `rethrows`, as
    /// the standard library's primitive is, to avoid a retain and a release per use; see
    /// Benchmarks/README, *Why the core looks like this*.
    @inlinable @inline(__always)
    func with<Result>(_ body: (Object) throws -> Result) rethrows -> Result { try reference._withUnsafeGuaranteedRef(body) }

    /// The object, as a strong reference of the caller's own.
    @inlinable @inline(__always)
    var object: Object { reference.takeUnretainedValue() }
}
