/// A unit of work that an ``ExecutionContext`` runs once.
///
/// Promise handlers reach a context as work items: the object that holds a handler is itself the
/// queue node, so handing work to a context allocates nothing. Subclass it to submit your own work
/// (or use ``ClosureWorkItem``).
///
/// A context calls ``run()`` exactly once, or ``discard()`` exactly once if it drops the item
/// without running it (a stopped run-loop thread, a cancelled operation). A work item sits in at
/// most one queue at a time.
///
/// Safety (`@unchecked Sendable`): `next` is touched only by the one queue that holds the item,
/// under that queue's lock or on its owning thread; handing the item to a queue and taking it out
/// again orders every access. Subclasses keep the same rule for their own state: written before
/// submission, read by `run()`.
open class WorkItem: @unchecked Sendable {
    /// The next item in whichever intrusive queue holds this one.
    @exclusivity(unchecked) package final var next: WorkItem?
    /// The library's own items run through a function specialized for their concrete type,
    /// created where that type is known, so a context never runs unspecialized generic code.
    @usableFromInline package final let runner: (@Sendable (WorkItem) -> Void)?

    /// Creates a work item.
    public init() { runner = nil }

    /// Creates a work item that `run()` hands to `runner`.
    @inlinable package init(runner: @escaping @Sendable (WorkItem) -> Void) { self.runner = runner }

    /// Does the work. Called once, on the context's thread.
    open func run() { runner?(self) }

    /// Called instead of ``run()`` when a context drops the item without running it.
    ///
    /// The default does nothing; promise handlers reject their promise with
    /// `PromiseError.abandoned` here.
    open func discard() {}

    /// Called instead of ``run()`` when the item is cancelled while queued (an operation queue's
    /// `cancel`). The default calls ``discard()``; promise handlers cancel their promise instead.
    open func cancelWhileQueued() { discard() }

    /// Whether running the item would be pointless: a promise handler whose promise was already
    /// cancelled. Contexts that can remove queued work drop such items without running them.
    open var isObsolete: Bool { false }
}

/// A work item that runs a closure.
public final class ClosureWorkItem: WorkItem, @unchecked Sendable {
    private let body: @Sendable () -> Void

    /// Creates a work item that calls `body` when it runs; a discarded item never calls it.
    public init(_ body: @escaping @Sendable () -> Void) {
        self.body = body
        super.init()
    }

    /// Calls the closure.
    public override func run() { body() }
}
