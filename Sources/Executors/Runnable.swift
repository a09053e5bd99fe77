/// Something an ``ExecutionContext`` runs once: a ``WorkItem`` of your own, or a promise's handler.
///
/// A context calls ``run()`` exactly once, or ``discard()`` exactly once if it drops the item
/// without running it (a stopped run-loop thread, a cancelled operation). To submit your own work,
/// conform a final class to this protocol (the compiler checks that it is `Sendable`; the
/// requirements other than ``run()`` have defaults) or use ``ClosureWorkItem``; a context only
/// ever calls these requirements.
///
/// The library's derived promises are their own runnables: the promise's state actor is the item
/// its handler's context queues, so deriving a promise allocates one object.
public protocol Runnable: AnyObject, Sendable {
    /// Does the work. Called once, on the context's thread.
    func run()

    /// Called instead of ``run()`` when a context drops the item without running it.
    ///
    /// A promise handler rejects its promise with `PromiseError.handlerDropped` here.
    func discard()

    /// Called instead of ``run()`` when the item is cancelled while queued (an operation queue's
    /// `cancel`). A promise handler cancels its promise here.
    func cancelWhileQueued()

    /// Whether running the item would be pointless: a promise handler whose promise was already
    /// cancelled. Contexts that can remove queued work may skip such items; a context that skips
    /// one calls ``discard()`` on it instead of ``run()``, so that it frees what it holds.
    var isObsolete: Bool { get }
}

extension Runnable {
    /// Does nothing.
    public func discard() {}

    /// Calls ``discard()``.
    public func cancelWhileQueued() { discard() }

    /// `false`: the item is always worth running.
    public var isObsolete: Bool { false }
}
