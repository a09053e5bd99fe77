/// A type-erased promise, as returned by ``Promise/parent`` and ``Promise/root``: enough to
/// cancel it and inspect its state.
public struct AnyPromise: Sendable, Hashable {
    let node: any PromiseNode

    init(_ node: any PromiseNode) { self.node = node }

    /// Creates a type-erased handle for `promise`.
    public init<Value>(_ promise: Promise<Value>) { node = promise.core }

    /// Cancels the promise and its descendants; see ``Promise/cancel(reason:)``.
    @_disfavoredOverload
    public func cancel(reason: (any Error)? = nil) {
        cancel(reason: reason, fileID: #fileID, line: #line)
    }

    /// Cancels the promise and its descendants; see ``Promise/cancel(reason:fileID:line:)``.
    ///
    /// - Parameters:
    ///   - reason: An error saying why, available as ``PromiseError/reason``.
    ///   - fileID: Where the cancellation is asked for, for its trace (filled in for you).
    ///   - line: The line of that site (filled in for you).
    public func cancel(reason: (any Error)? = nil, fileID: StaticString = #fileID, line: UInt = #line) {
        cancelTree(node, reason: reason, origin: tracesAreOn ? .cancelled(PromiseSite(fileID: fileID, line: line, operation: .cancel)) : nil)
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
