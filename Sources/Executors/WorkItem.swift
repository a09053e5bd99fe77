/// A unit of work of your own, to submit to an ``ExecutionContext``: subclass it and override
/// ``run()`` (or use ``ClosureWorkItem``). A subclass must restate `@unchecked Sendable`; a final
/// class that conforms to ``Runnable`` instead is checked by the compiler.
///
/// A context calls ``run()`` exactly once, or ``discard()`` exactly once if it drops the item
/// without running it (a stopped run-loop thread, a cancelled operation).
///
/// Safety (`@unchecked Sendable`): the class itself holds no state. Subclasses keep this rule for
/// theirs: written before submission, read by `run()`; the context's hand-over orders the two.
open class WorkItem: Runnable, @unchecked Sendable {
    /// Creates a work item.
    public init() {}

    /// Does the work. Called once, on the context's thread. The default does nothing.
    open func run() {}

    /// Called instead of ``run()`` when a context drops the item without running it.
    /// The default does nothing.
    open func discard() {}

    /// Called instead of ``run()`` when the item is cancelled while queued (an operation queue's
    /// `cancel`). The default calls ``discard()``.
    open func cancelWhileQueued() { discard() }

    /// Whether running the item would be pointless; `false` unless a subclass says otherwise.
    open var isObsolete: Bool { false }
}

/// A work item that runs a closure.
public final class ClosureWorkItem: WorkItem, @unchecked Sendable {
    // Safety: `body` is immutable.
    private let body: @Sendable () -> Void

    /// Creates a work item that calls `body` when it runs; a discarded item never calls it.
    public init(_ body: @escaping @Sendable () -> Void) {
        self.body = body
        super.init()
    }

    /// Calls the closure.
    public override func run() { body() }
}
