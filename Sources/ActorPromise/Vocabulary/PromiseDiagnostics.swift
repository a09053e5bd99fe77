import ActorPromiseExecutors

/// Hooks that report misuse which the library recovers from but a developer wants to hear about.
public enum PromiseDiagnostics {
    private static let abandoned = DiagnosticHook<PromiseError>()
    private static let unhandled = DiagnosticHook<UnhandledRejection>()

    /// Called when a pending promise is abandoned (its resolver was released before settling it),
    /// with the ``PromiseError`` its observers receive, before they receive it; and when a context
    /// drops a derived promise's handler without running it (a stopped run-loop thread), as that
    /// promise is rejected. In debug builds
    /// `error.site` names where the promise was created; release builds record no sites (a site
    /// would make every resolver larger than one pointer), so it is `nil` there.
    ///
    /// By default, debug builds print a warning to standard error and release builds stay silent.
    /// Set it to `nil` to restore the default. It runs on the thread that released the resolver
    /// (or, when another thread was working on the promise's state at that moment, on that one).
    public static var abandonmentHandler: (@Sendable (PromiseError) -> Void)? {
        get { abandoned.handler }
        set { abandoned.handler = newValue }
    }

    static func reportAbandoned(_ error: PromiseError) { abandoned.report(error) }

    /// Called when a promise rejected with an error that nobody took is released (R14), with the
    /// error and the site where that promise was made.
    ///
    /// A rejection is taken by `catch`, `recover`, the error half of a two-handler `then`,
    /// `whenComplete`, an awaiter (`value`, `outcome`), `wait`, a combinator, `timeout` or `retry`
    /// observing it as an input, or a promise that follows it. A value-only `then`, `map`, `ensure`
    /// or `tap` passes it on to the promise it returns, so a chain is reported once, for the
    /// promise where the rejection stopped. A handler attached any time before the release
    /// counts, so there is no false alarm for a `catch` added late. Cancellations and abandoned
    /// promises are never reported here (abandonment has ``abandonmentHandler``).
    ///
    /// By default, debug builds print a warning to standard error and release builds stay silent.
    /// Set it to `nil` to restore the default. It runs on the thread that releases the promise.
    public static var unhandledRejectionHandler: (@Sendable (UnhandledRejection) -> Void)? {
        get { unhandled.handler }
        set { unhandled.handler = newValue }
    }

    static func reportUnhandled(_ rejection: UnhandledRejection) { unhandled.report(rejection) }
}

/// One report of ``PromiseDiagnostics``: a handler that may be set from any thread, and the
/// default when none is set (debug builds print a warning to standard error, release builds stay
/// silent). The handler sits behind the library's pthread-based lock, which ThreadSanitizer
/// models exactly (it reported reads inside `Synchronization.Mutex` here as races).
final class DiagnosticHook<Report: Sendable & CustomStringConvertible>: Sendable {
    // The handler sits in a box: a function value kept directly in generic storage is wrapped in
    // another conversion thunk each time it is read back, so a hook read once per report grew by
    // a thunk per report, and calling it recursed through all of them: the stack deepened with
    // every report (`DiagnosticHookDepthTests`).
    private let stored = LockedState<Box?>(nil)

    private final class Box: Sendable {
        let body: @Sendable (Report) -> Void
        init(_ body: @escaping @Sendable (Report) -> Void) { self.body = body }
    }

    var handler: (@Sendable (Report) -> Void)? {
        get { stored.withLock { $0 }?.body }
        set { stored.withLock { $0 = newValue.map(Box.init) } }
    }

    func report(_ report: Report) {
        if let custom = stored.withLock({ $0 }) {
            custom.body(report)
            return
        }
        #if DEBUG
        var line = "ActorPromise warning: \(report)\n"
        line.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
        #endif
    }
}

/// A rejection that no party took, reported when its promise was released (R14; see
/// ``PromiseDiagnostics/unhandledRejectionHandler``).
public struct UnhandledRejection: Sendable, CustomStringConvertible {
    /// The error the promise was rejected with.
    public let error: any Error
    /// Where the promise was made, `File.swift:42` (recorded in debug builds).
    public let site: String
    /// The rejection's path, from where it entered the chain to this promise, if traces were on
    /// (see ``PromiseTrace``).
    public let trace: PromiseTrace?

    /// "unhandled rejection of the promise made at File.swift:42: error", then the trace, if any.
    public var description: String {
        let head = "unhandled rejection of the promise made at \(site): \(error)"
        return trace.map { "\(head)\n\($0)" } ?? head
    }
}
