/// A weak reference, to check that an object was freed.
final class WeakReference: @unchecked Sendable {
    // Safety: written once in init; weak loads are thread-safe.
    weak var object: AnyObject?
    init(_ object: AnyObject) { self.object = object }
}
