/// The type-erased face of a promise's state actor, used to walk the promise tree: cancellation
/// travels down it, "done" reports and interest travel up.
protocol PromiseNode: AnyObject, Sendable {
    /// The promise this one was derived from (`then` and friends), if any.
    var parentNode: (any PromiseNode)? { get }
    /// Whether the promise is still pending (a snapshot).
    var isPending: Bool { get }
    /// Whether `cancel` has reached this promise (a snapshot).
    var isCancelled: Bool { get }
    /// The outcome as a type-erased result, if settled (a snapshot).
    var anyOutcome: Outcome<any Sendable>? { get }
    /// Cancels this promise; children to forward to are appended to `work` when known now.
    func cancel(reason: (any Error)?, forwardingInto work: inout [any PromiseNode])
    /// A child reports that it and all its descendants have settled. Returns this node when it
    /// became done by that report, so that the caller can continue up the tree without recursion.
    func childDone(_ child: ObjectIdentifier) -> (any PromiseNode)?
    /// Registers a child again after this node had reported itself done. Returns this node when
    /// it must in turn re-register with its own parent.
    func reattach(_ child: any PromiseNode) -> (any PromiseNode)?
    /// A dependent (child, adopter or awaiter) was cancelled while this promise was pending.
    func dependentCancelled()
}

/// The live children of a promise: those that, or whose descendants, are still pending. Kept so
/// that cancellation reaches them after the parent settled. The first is stored inline.
struct ChildList {
    private var first: (any PromiseNode)?
    private var rest: [ObjectIdentifier: any PromiseNode] = [:]

    var isEmpty: Bool { first == nil && rest.isEmpty }

    mutating func insert(_ child: any PromiseNode) {
        if first == nil {
            first = child
        } else {
            rest[ObjectIdentifier(child)] = child
        }
    }

    mutating func remove(_ id: ObjectIdentifier) {
        if let first, ObjectIdentifier(first) == id {
            self.first = nil
            return
        }
        rest[id] = nil
    }

    var all: [any PromiseNode] {
        var nodes: [any PromiseNode] = []
        nodes.reserveCapacity(rest.count + 1)
        if let first { nodes.append(first) }
        nodes.append(contentsOf: rest.values)
        return nodes
    }
}
