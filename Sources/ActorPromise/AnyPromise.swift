/// A type-erased promise, as returned by ``Promise/parent`` and ``Promise/root``: enough to
/// cancel it and inspect its state.
public struct AnyPromise: Sendable, Hashable {
    let node: any PromiseNode

    init(_ node: any PromiseNode) { self.node = node }

    /// Creates a type-erased handle for `promise`.
    public init<Value>(_ promise: Promise<Value>) { node = promise.core }

    /// Cancels the promise and its descendants; see ``Promise/cancel(reason:)``.
    public func cancel(reason: (any Error)? = nil) {
        cancelTree(node, reason: reason)
    }

    /// Whether the promise is still pending (a snapshot).
    public var isPending: Bool { node.isPending }

    /// Whether the promise is rejected with a cancellation error (a snapshot); see
    /// ``Promise/isCancelled``.
    public var isCancelled: Bool {
        if case .failure(let error)? = node.anyOutcome { error.isCancellation } else { false }
    }

    /// The outcome with the value erased, or `nil` while pending (a snapshot).
    public var result: Result<any Sendable, any Error>? { node.anyOutcome }

    /// The promise this one was derived from, or `nil` for a root.
    public var parent: AnyPromise? { node.parentNode.map(AnyPromise.init) }

    /// Whether this handle refers to `promise`.
    public func refers<Value>(to promise: Promise<Value>) -> Bool { node === promise.core }

    /// Whether both handles refer to the same promise.
    public static func == (lhs: AnyPromise, rhs: AnyPromise) -> Bool { lhs.node === rhs.node }

    /// Hashes the identity of the promise.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(node)) }
}
