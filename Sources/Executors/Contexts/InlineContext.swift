/// Runs handlers synchronously, on the thread that settles the promise.
///
/// Use it for cheap, non-blocking handlers where a thread hop costs more than the work. It is the
/// one context on which Promises/A+ §2.2.4 does not hold: a handler registered on an already
/// settled promise runs inside the `then` call, and a handler of a pending promise runs inside the
/// `fulfill` / `reject` call that settles it.
///
/// The stack never grows with chain length: when an inline handler settles another promise whose
/// handlers are inline too, those run right after the current handler returns (in a loop on the
/// same thread), not nested inside it. A chain of a million inline links settles in constant stack.
public final class InlineContext: ExecutionContext {
    /// The shared inline context.
    public static let shared = InlineContext()

    private init() {}

    /// Runs `item` on the calling thread, now or right after the inline work already running here.
    public func submit(_ item: any Runnable) {
        ThreadState.withCurrent { $0.runInline(item) }
    }
}

extension ExecutionContext where Self == InlineContext {
    /// Runs handlers synchronously on the thread that settles the promise. See ``InlineContext``.
    public static var inline: InlineContext { InlineContext.shared }
}
