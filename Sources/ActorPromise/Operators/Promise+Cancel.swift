extension Promise {
    /// Cancels this promise and every promise derived from it (R5).
    ///
    /// If this promise is pending, it is rejected with ``PromiseError/Code/cancelled`` (carrying
    /// `reason`) and its ``Resolver/onCancel(_:)`` handler runs. Whether or not it was pending, the
    /// cancellation is forwarded to all of its children, and theirs, so every pending promise
    /// below it is cancelled; promises that already settled keep their outcome. The parent is
    /// not cancelled while anything else waits for it; if this was its last waiting dependent, it
    /// cancels itself and stops its work (interest, R7/B7), unless it was created with
    /// `tracksInterest: false`. A second `cancel` does nothing.
    ///
    /// Cancellation is a rejection, and everyone who observes errors learns of it (R5b): at every
    /// depth of the cancelled branch, `catch`, `recover`, the error half of a two-handler `then`,
    /// `tap`, `ensure`, `ensureThen`, `whenComplete` and awaiters run (or throw) once with the
    /// cancellation error, whether they were registered before or after this call. What such a
    /// handler returns is ignored: a cancelled promise stays cancelled. Value-only handlers
    /// (`then`, `map`, `flatMap`) that have not started are skipped, as for any rejection. The
    /// whole branch is cancelled before any of those handlers runs.
    ///
    /// - Parameter reason: An error saying why, available as ``PromiseError/reason``.
    public func cancel(reason: (any Error)? = nil) {
        core.cancel(reason: reason)
    }

    /// The promise this one was derived from, or `nil` for a root promise.
    public var parent: AnyPromise? {
        core.parentNode.map(AnyPromise.init)
    }

    /// The first ancestor that has no parent: the promise created by the underlying work.
    public var root: AnyPromise {
        var node: any PromiseNode = core
        while let parent = node.parentNode { node = parent }
        return AnyPromise(node)
    }
}

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
